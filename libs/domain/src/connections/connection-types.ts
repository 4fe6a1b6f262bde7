/**
 * Connection types and the tools each offers. The spec shows only some values (`CONNECTION_TYPE_SQLDB`,
 * `CONNECTION_TYPE_HTTP`, the SQL and PromQL tools); the rest is decided here and recorded in
 * docs/decisions.md. Agents and runbooks may enable only tools their connection's type offers;
 * ListConnectionTypes returns the user-creatable ones.
 */
export interface ConnectionType {
  type: string;
  displayName: string;
  description: string;
  /** Created by users in the product's UI (the others are set up by operators or OAuth flows). */
  userCreatable: boolean;
  availableTools: readonly string[];
}

export const CONNECTION_TYPES: readonly ConnectionType[] = [
  {
    type: 'CONNECTION_TYPE_SQLDB',
    displayName: 'SQL database',
    description: 'A SQL database the agents query (PostgreSQL, MySQL and compatible).',
    userCreatable: true,
    availableTools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_LIST_TABLES', 'TOOL_SQLDB_DESCRIBE_TABLE'],
  },
  {
    type: 'CONNECTION_TYPE_PROMETHEUS',
    displayName: 'Prometheus',
    description: 'A Prometheus-compatible metrics endpoint.',
    userCreatable: true,
    availableTools: ['TOOL_PROMQL_QUERY', 'TOOL_PROMQL_QUERY_RANGE', 'TOOL_PROMQL_LIST_METRICS'],
  },
  {
    type: 'CONNECTION_TYPE_HTTP',
    displayName: 'HTTP API',
    description: 'An HTTP API the agents call.',
    userCreatable: true,
    availableTools: ['TOOL_HTTP_REQUEST'],
  },
  {
    type: 'CONNECTION_TYPE_CODEHOST',
    displayName: 'Code host',
    description: 'Source repositories, pull requests and deployments.',
    userCreatable: false,
    availableTools: ['TOOL_CODEHOST_READ_FILE', 'TOOL_CODEHOST_LIST_DIRECTORY', 'TOOL_CODEHOST_SEARCH', 'TOOL_CODEHOST_LIST_COMMITS'],
  },
  {
    type: 'CONNECTION_TYPE_CHAT',
    displayName: 'Chat',
    description: 'A chat workspace for notifications and mentions.',
    userCreatable: false,
    availableTools: ['TOOL_CHAT_POST_MESSAGE'],
  },
  {
    type: 'CONNECTION_TYPE_PAGER',
    displayName: 'Pager',
    description: 'An on-call paging service.',
    userCreatable: false,
    availableTools: ['TOOL_PAGER_CREATE_INCIDENT'],
  },
  {
    type: 'CONNECTION_TYPE_TRACKER',
    displayName: 'Issue tracker',
    description: 'A ticket tracker.',
    userCreatable: false,
    availableTools: ['TOOL_TRACKER_CREATE_TICKET'],
  },
  {
    type: 'CONNECTION_TYPE_INCIDENTMGR',
    displayName: 'Incident manager',
    description: 'An incident-management platform: incidents are declared on it and it sends incident webhooks.',
    userCreatable: false,
    availableTools: [],
  },
  {
    type: 'CONNECTION_TYPE_IDP',
    displayName: 'Identity provider',
    description: 'The identity provider members sign in with; organization invitations are sent through it.',
    userCreatable: false,
    availableTools: [],
  },
];

/** Tools a connection of this type offers (none for an unknown type). */
export function toolsOf(connectionType: string): readonly string[] {
  return CONNECTION_TYPES.find((t) => t.type === connectionType)?.availableTools ?? [];
}

/** ListConnectionTypes answers with these only (spec: "Only user-creatable types are returned"). */
export function userCreatableConnectionTypes(): Array<Omit<ConnectionType, 'userCreatable'>> {
  return CONNECTION_TYPES.filter((t) => t.userCreatable).map(({ userCreatable: _, ...record }) => record);
}
