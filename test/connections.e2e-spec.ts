import { execFile } from 'node:child_process';
import { ALICE, BOB, CLI_MAIN, GINA, REQUEST_INFO, Stack, TEST_CONFIG } from './support/harness';

interface Connection {
  name: string;
  displayName: string;
  description?: string;
  connectionType: string;
  connectionDetails?: Record<string, Record<string, unknown>>;
  toolConfigurations?: Array<{ tool: string; enabled: boolean }>;
}
interface ListConnections {
  connections: Connection[];
  nextPageToken: string;
}
interface ConnectionType {
  type: string;
  displayName: string;
  description: string;
  availableTools: string[];
}
interface ListTypes {
  types: ConnectionType[];
  nextPageToken: string;
}

/** Every clear secret the configuration below holds, inline or through the environment. */
const SECRETS = ['inline-secret', 'prom-token-secret', 'chat-signing-secret', 'globex-secret', 'vault-from-env', 'partner-api-key', 'partner.example'];

// TEST_CONFIG plus two acme connections whose passwords come from the api's environment (one unset), and
// an HTTP one whose secret is not called a password and whose address comes from the environment.
const CONFIG = TEST_CONFIG.replace(
  '      - id: pagerduty\n',
  `      - id: vault
        display_name: Vault DB
        type: CONNECTION_TYPE_SQLDB
        details: {sqldb: {host: vault.internal, port: 5433, database: vault, username: ro, password: "\${env:VAULT_PASSWORD}", ssl_mode: verify-full}}
      - id: broken
        display_name: Broken DB
        type: CONNECTION_TYPE_SQLDB
        details: {sqldb: {host: broken.internal, password: "\${env:SVC_TEST_UNSET_PASSWORD}"}}
      - id: partner
        display_name: Partner API
        type: CONNECTION_TYPE_HTTP
        details: {http: {base_url: "\${env:PARTNER_URL}", api_key: partner-api-key, timeout_seconds: 5}}
      - id: pagerduty\n`,
);

const query = (params: Record<string, string | number | boolean>) =>
  `?${Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&')}`;

describe('connections (GET /v1/connections, /v1/connections/{id}, /v1/connection-types)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ config: CONFIG, env: { VAULT_PASSWORD: 'vault-from-env', PARTNER_URL: 'https://partner.example' } });
  });
  afterAll(async () => {
    await stack.destroy();
  });

  const list = async (params: Record<string, string | number | boolean> = {}, as = ALICE) =>
    stack.request<ListConnections>('GET', `/v1/connections${query(params)}`, { as });
  const names = async (params: Record<string, string | number | boolean>) => (await list(params)).body.connections.map((c) => c.name);

  it('GetConnection answers the connection with its details and an inline secret opened, keys lowerCamelCase', async () => {
    const res = await stack.request<{ connection: Connection }>('GET', '/v1/connections/warehouse');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      connection: {
        name: 'connections/warehouse',
        displayName: 'Warehouse',
        description: '',
        connectionType: 'CONNECTION_TYPE_SQLDB',
        connectionDetails: {
          sqldb: { host: 'db.internal', port: 5432, database: 'analytics', username: 'svc', password: 'inline-secret', sslMode: 'require' },
        },
        toolConfigurations: [{ tool: 'TOOL_SQLDB_QUERY', enabled: true }],
      },
    });
    const chat = await stack.request<{ connection: Connection }>('GET', '/v1/connections/slack');
    expect(chat.body.connection.connectionDetails).toEqual({
      chat: { teamId: 'T001', signingSecret: 'chat-signing-secret', botChannels: [{ name: '#ops', id: 'C001' }] },
    });
  });

  it('answers secret values only to callers holding INTEGRATIONS_WRITE: a member without it gets the other details', async () => {
    const chat = await stack.request<{ connection: Connection }>('GET', '/v1/connections/slack', { as: BOB });
    expect(chat.body.connection.connectionDetails).toEqual({ chat: { teamId: 'T001', botChannels: [{ name: '#ops', id: 'C001' }] } });
    const warehouse = await stack.request<{ connection: Connection }>('GET', '/v1/connections/warehouse', { as: BOB });
    expect(warehouse.body.connection.connectionDetails).toEqual({ sqldb: { host: 'db.internal', port: 5432, database: 'analytics', username: 'svc', sslMode: 'require' } });
    // Values kept in the environment are left out too, and one that cannot be opened is no error for them.
    const partner = await stack.request<{ connection: Connection }>('GET', '/v1/connections/partner', { as: BOB });
    expect(partner.body.connection.connectionDetails).toEqual({ http: { timeoutSeconds: 5 } });
    expect((await stack.request('GET', '/v1/connections/broken', { as: BOB })).status).toBe(200);
    for (const name of ['slack', 'warehouse', 'vault', 'partner']) {
      const text = JSON.stringify((await stack.request('GET', `/v1/connections/${name}`, { as: BOB })).body);
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    }
  });

  it('a ${env:NAME} secret is resolved from the api environment at read time', async () => {
    const res = await stack.request<{ connection: Connection }>('GET', '/v1/connections/vault');
    expect(res.status).toBe(200);
    expect(res.body.connection.connectionDetails).toEqual({
      sqldb: { host: 'vault.internal', port: 5433, database: 'vault', username: 'ro', password: 'vault-from-env', sslMode: 'verify-full' },
    });
  });

  it('any ${env:NAME} value is resolved at read time, and a secret named like api_key is sealed like a password', async () => {
    const res = await stack.request<{ connection: Connection }>('GET', '/v1/connections/partner');
    expect(res.status).toBe(200);
    expect(res.body.connection.connectionDetails).toEqual({
      http: { baseUrl: 'https://partner.example', apiKey: 'partner-api-key', timeoutSeconds: 5 },
    });
  });

  it('an unset variable is FAILED_PRECONDITION naming the variable, never a secret', async () => {
    const res = await stack.request('GET', '/v1/connections/broken');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: {
        status: 'FAILED_PRECONDITION',
        message: expect.stringMatching(/connections\/broken.*SVC_TEST_UNSET_PASSWORD is not set/),
        details: [expect.objectContaining({ reason: 'CONNECTION_SECRET_UNAVAILABLE' }), REQUEST_INFO],
      },
    });
    expect(JSON.stringify(res.body)).not.toMatch(/enc:v\d|broken\.internal/);
  });

  it('an unknown connection is NOT_FOUND; the methods have no RPC form', async () => {
    const missing = await stack.request('GET', '/v1/connections/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { status: 'NOT_FOUND', message: "connection 'connections/nope' not found" } });
    const rpc = await stack.rpc('svc.connections.v1.ConnectionsService/GetConnection', { connection_id: 'warehouse' });
    expect(rpc.status).toBe(404);
    expect((await stack.rpc('svc.connections.v1.ConnectionsService/ListConnections', {})).status).toBe(404);
  });

  it('ListConnections items carry name, displayName and connectionType only, in name order', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      connections: [
        { name: 'connections/broken', displayName: 'Broken DB', connectionType: 'CONNECTION_TYPE_SQLDB' },
        { name: 'connections/github', displayName: 'GitHub', connectionType: 'CONNECTION_TYPE_CODEHOST' },
        { name: 'connections/metrics', displayName: 'Metrics', connectionType: 'CONNECTION_TYPE_PROMETHEUS' },
        { name: 'connections/pagerduty', displayName: 'pagerduty', connectionType: 'CONNECTION_TYPE_PAGER' },
        { name: 'connections/partner', displayName: 'Partner API', connectionType: 'CONNECTION_TYPE_HTTP' },
        { name: 'connections/slack', displayName: 'Slack', connectionType: 'CONNECTION_TYPE_CHAT' },
        { name: 'connections/vault', displayName: 'Vault DB', connectionType: 'CONNECTION_TYPE_SQLDB' },
        { name: 'connections/warehouse', displayName: 'Warehouse', connectionType: 'CONNECTION_TYPE_SQLDB' },
      ],
      nextPageToken: '',
    });
  });

  it('ListConnections filters on connection_type, orders, pages with bound tokens, accepts show_deleted', async () => {
    const sqldb = { filter: "connection_type = 'CONNECTION_TYPE_SQLDB'" };
    expect(await names(sqldb)).toEqual(['connections/broken', 'connections/vault', 'connections/warehouse']);
    expect(await names({ ...sqldb, order_by: 'display_name desc' })).toEqual(['connections/warehouse', 'connections/vault', 'connections/broken']);
    expect(await names({ filter: "display_name : 'G*' OR connection_type = 'CONNECTION_TYPE_CHAT'" })).toEqual(['connections/github', 'connections/slack']);
    expect(await names({ ...sqldb, showDeleted: true })).toEqual(['connections/broken', 'connections/vault', 'connections/warehouse']);

    const seen: string[] = [];
    let token = '';
    do {
      const page = await list({ orderBy: 'connection_type, name desc', pageSize: 2, ...(token ? { pageToken: token } : {}) });
      expect(page.status).toBe(200);
      expect(page.body.connections.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.connections.map((c) => c.name));
      token = page.body.nextPageToken;
    } while (token);
    expect(seen).toEqual([
      'connections/slack',
      'connections/github',
      'connections/partner',
      'connections/pagerduty',
      'connections/metrics',
      'connections/warehouse',
      'connections/vault',
      'connections/broken',
    ]);

    const first = await list({ ...sqldb, page_size: 1 });
    expect(first.body.nextPageToken).not.toBe('');
    const reused = await list({ page_size: 1, page_token: first.body.nextPageToken });
    expect(reused.status).toBe(400);
    expect(reused.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/page_token/) } });
    expect((await list({ filter: "connection_details = 'x'" })).status).toBe(400);
    expect((await list({ order_by: 'password' })).status).toBe(400);
  });

  it('no secret, sealed or clear, leaves through a list', async () => {
    const body = JSON.stringify((await list()).body);
    for (const secret of SECRETS) expect(body).not.toContain(secret);
    expect(body).not.toMatch(/enc:v\d|env:|connectionDetails|toolConfigurations/);
  });

  it('tenant isolation: each organization reads only its own connections', async () => {
    expect((await stack.request('GET', '/v1/connections/ledger')).status).toBe(404);
    expect((await stack.request('GET', '/v1/connections/warehouse', { as: GINA })).status).toBe(404);
    const globex = await list({}, GINA);
    expect(globex.body.connections.map((c) => c.name)).toEqual(['connections/ledger']);
    const ledger = await stack.request<{ connection: Connection }>('GET', '/v1/connections/ledger', { as: GINA });
    expect(ledger.body.connection.connectionDetails?.sqldb.password).toBe('globex-secret');
  });

  it('ListConnectionTypes lists the user-creatable types with their tools', async () => {
    const res = await stack.request<ListTypes>('GET', '/v1/connection-types', { as: BOB });
    expect(res.status).toBe(200);
    expect(res.body.nextPageToken).toBe('');
    expect(res.body.types.map((t) => t.type)).toEqual(['CONNECTION_TYPE_HTTP', 'CONNECTION_TYPE_PROMETHEUS', 'CONNECTION_TYPE_SQLDB']);
    expect(res.body.types[2]).toEqual({
      type: 'CONNECTION_TYPE_SQLDB',
      displayName: 'SQL database',
      description: expect.any(String),
      availableTools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_LIST_TABLES', 'TOOL_SQLDB_DESCRIBE_TABLE'],
    });
    // Operator-only types (code host, chat, pager, tracker) are not user-creatable.
    expect(JSON.stringify(res.body)).not.toMatch(/CODEHOST|CHAT|PAGER|TRACKER/);
  });

  it('ListConnectionTypes filters, orders and pages through the shared query rules', async () => {
    const types = async (params: Record<string, string | number>) =>
      stack.request<ListTypes>('GET', `/v1/connection-types${query(params)}`);
    expect((await types({ filter: "available_tools:'TOOL_PROMQL_QUERY'" })).body.types.map((t) => t.type)).toEqual(['CONNECTION_TYPE_PROMETHEUS']);
    expect((await types({ filter: "type = 'CONNECTION_TYPE_SQLDB' OR display_name = 'HTTP API'" })).body.types.map((t) => t.type)).toEqual([
      'CONNECTION_TYPE_HTTP',
      'CONNECTION_TYPE_SQLDB',
    ]);
    expect((await types({ order_by: 'display_name desc' })).body.types.map((t) => t.displayName)).toEqual(['SQL database', 'Prometheus', 'HTTP API']);
    const first = await types({ page_size: 2 });
    expect(first.body.types).toHaveLength(2);
    const second = await types({ page_size: 2, page_token: first.body.nextPageToken });
    expect(second.body).toEqual({ types: [expect.objectContaining({ type: 'CONNECTION_TYPE_SQLDB' })], nextPageToken: '' });
    expect((await types({ page_size: 2, order_by: 'display_name', page_token: first.body.nextPageToken })).status).toBe(400);
    expect((await types({ filter: "colour = 'red'" })).status).toBe(400);
  });

  it('no clear secret is in the event log or in any process output; stored secrets are sealed or references', async () => {
    const log = await new Promise<string>((resolve, reject) => {
      const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
      execFile(process.execPath, [CLI_MAIN, 'events', '--limit', '100000', '--json'], { env, maxBuffer: 64 << 20 }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      );
    });
    const events = (JSON.parse(log) as { events: Array<{ type: string; stream: string; data: Record<string, unknown> }> }).events;
    const configured = events.filter((e) => e.type === 'ConnectionConfigured');
    expect(configured.map((e) => e.stream)).toContain('connection-acme:connections/warehouse');
    for (const secret of SECRETS) expect(log).not.toContain(secret);
    for (const secret of SECRETS) expect(stack.output.join('')).not.toContain(secret);
    const stored = (name: string) =>
      (configured.find((e) => e.stream === `connection-acme:${name}`)?.data.connection as Connection).connectionDetails?.sqldb.password;
    expect(stored('connections/warehouse')).toMatch(/^enc:v2:/);
    expect(stored('connections/vault')).toBe('${env:VAULT_PASSWORD}');
    const partner = configured.find((e) => e.stream === 'connection-acme:connections/partner')?.data.connection as Connection;
    expect(partner.connectionDetails?.http).toEqual({ base_url: '${env:PARTNER_URL}', api_key: expect.stringMatching(/^enc:v2:/), timeout_seconds: 5 });
  });
});
