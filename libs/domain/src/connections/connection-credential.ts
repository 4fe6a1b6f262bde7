/**
 * The one credential field of a connection's details an OAuth callback seals, where each adapter
 * reads it: `codehost.token`, `chat.bot_token`, `tracker.token`. The operator may spell a detail key
 * snake_case or lowerCamelCase (details are kept as written); both spellings are read, and writing
 * the credential keeps one.
 */

/** `details.<section>.<field>`, the field snake_case. */
export interface CredentialPath {
  section: string;
  field: string;
}

/** Where each kind of OAuth connection keeps its token. */
export const OAUTH_CREDENTIALS = {
  codehost: { connectionType: 'CONNECTION_TYPE_CODEHOST', path: { section: 'codehost', field: 'token' } },
  chat: { connectionType: 'CONNECTION_TYPE_CHAT', path: { section: 'chat', field: 'bot_token' } },
  tracker: { connectionType: 'CONNECTION_TYPE_TRACKER', path: { section: 'tracker', field: 'token' } },
} as const satisfies Record<string, { connectionType: string; path: CredentialPath }>;

const camel = (snake: string) => snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const sectionOf = (details: Record<string, unknown>, section: string): Record<string, unknown> => {
  const value = details[section];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
};

/** The credential's stored value (sealed), or undefined. */
export function credentialOf(details: Record<string, unknown>, path: CredentialPath): unknown {
  const section = sectionOf(details, path.section);
  return section[path.field] ?? section[camel(path.field)];
}

export const sameCredential = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** `details` with the credential set (a copy; the other fields as they are). */
export function detailsWithCredential(details: Record<string, unknown>, path: CredentialPath, value: unknown): Record<string, unknown> {
  const section = { ...sectionOf(details, path.section) };
  delete section[camel(path.field)];
  if (value === undefined) delete section[path.field];
  else section[path.field] = value;
  return { ...details, [path.section]: section };
}
