import * as fs from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { parseServices, type ServiceConfig } from './catalog-config';
import { ConfigError } from './config-error';

/** The operator configuration file (spec/operator-config.md), JSON or YAML. */
export interface OperatorConfig {
  organizations: OrganizationConfig[];
  workloadIssuers: Array<{ issuer: string; publicKeyPem: string }>;
  bearerIssuers: Array<{ issuer: string; audience?: string; publicKeyPem: string; orgClaim: string }>;
  machineCredentials: string[];
}

export interface OrganizationConfig {
  id: string;
  displayName: string;
  members: Array<{ user: string; roles: string[]; apiKeys: ApiKeyPair[] }>;
  serviceAccounts: Array<{ id: string; roles: string[]; apiKeys: ApiKeyPair[] }>;
  connections: ConnectionConfig[];
  /** The frozen service catalog, checked against the catalog's rules before anything is applied. */
  services: ServiceConfig[];
}

export interface ApiKeyPair {
  keyId: string;
  /** Clear secret from the file (or its environment reference, resolved); only ever hashed. */
  secret: string;
}

export interface ConnectionConfig {
  id: string;
  displayName: string;
  description: string;
  type: string;
  details: Record<string, unknown>;
  tools: Array<{ tool: string; enabled: boolean }>;
}

export { ConfigError };

export function loadOperatorConfig(file: string, env: NodeJS.ProcessEnv = process.env): OperatorConfig {
  let raw: unknown;
  try {
    raw = parseYaml(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return parseOperatorConfig(raw, env);
}

/** Validates the shape and names every problem with its path, before anything is applied. */
export function parseOperatorConfig(raw: unknown, env: NodeJS.ProcessEnv = process.env): OperatorConfig {
  const root = obj(raw ?? {}, '');
  const keyIds = new Set<string>();
  const pair = (value: unknown, where: string): ApiKeyPair => {
    const text = resolve(str(value, where), env, where);
    const colon = text.indexOf(':');
    if (colon <= 0 || colon === text.length - 1) throw new ConfigError(`${where} must be "username:password"`);
    const keyId = text.slice(0, colon);
    if (keyIds.has(keyId)) throw new ConfigError(`${where}: API key '${keyId}' appears twice; key usernames are global`);
    keyIds.add(keyId);
    return { keyId, secret: text.slice(colon + 1) };
  };
  const organizations = list(root.organizations, 'organizations').map((o, i) => {
    const at = `organizations[${i}]`;
    const org = obj(o, at);
    const id = str(org.id, `${at}.id`);
    return {
      id,
      displayName: optStr(org.display_name ?? org.displayName, `${at}.display_name`) ?? id,
      members: list(org.members, `${at}.members`).map((m, j) => {
        const mat = `${at}.members[${j}]`;
        const member = obj(m, mat);
        return {
          user: str(member.user, `${mat}.user`).replace(/^users\//, ''),
          roles: list(member.roles, `${mat}.roles`).map((r, k) => str(r, `${mat}.roles[${k}]`)),
          apiKeys: list(member.api_keys ?? member.apiKeys, `${mat}.api_keys`).map((p, k) => pair(p, `${mat}.api_keys[${k}]`)),
        };
      }),
      serviceAccounts: list(org.service_accounts ?? org.serviceAccounts, `${at}.service_accounts`).map((s, j) => {
        const sat = `${at}.service_accounts[${j}]`;
        const sa = obj(s, sat);
        return {
          id: str(sa.id, `${sat}.id`).replace(/^service-accounts\//, ''),
          roles: list(sa.roles, `${sat}.roles`).map((r, k) => str(r, `${sat}.roles[${k}]`)),
          apiKeys: list(sa.api_keys ?? sa.apiKeys, `${sat}.api_keys`).map((p, k) => pair(p, `${sat}.api_keys[${k}]`)),
        };
      }),
      connections: list(org.connections, `${at}.connections`).map((c, j) => {
        const cat = `${at}.connections[${j}]`;
        const connection = obj(c, cat);
        const cid = str(connection.id, `${cat}.id`);
        return {
          id: cid,
          displayName: optStr(connection.display_name ?? connection.displayName, `${cat}.display_name`) ?? cid,
          description: optStr(connection.description, `${cat}.description`) ?? '',
          type: str(connection.type, `${cat}.type`),
          details: connection.details === undefined ? {} : obj(connection.details, `${cat}.details`),
          tools: list(connection.tools, `${cat}.tools`).map((t, k) => {
            const tool = obj(t, `${cat}.tools[${k}]`);
            return { tool: str(tool.tool, `${cat}.tools[${k}].tool`), enabled: tool.enabled !== false };
          }),
        };
      }),
      services: parseServices(list(org.services, `${at}.services`), `${at}.services`),
    };
  });
  const ids = new Set<string>();
  for (const org of organizations) {
    if (ids.has(org.id)) throw new ConfigError(`organization '${org.id}' appears twice`);
    ids.add(org.id);
  }
  return {
    organizations,
    workloadIssuers: list(root.workload_issuers, 'workload_issuers').map((w, i) => {
      const issuer = obj(w, `workload_issuers[${i}]`);
      return { issuer: str(issuer.issuer, `workload_issuers[${i}].issuer`), publicKeyPem: String(issuer.public_key_pem ?? '') };
    }),
    bearerIssuers: list(root.bearer_issuers, 'bearer_issuers').map((b, i) => {
      const issuer = obj(b, `bearer_issuers[${i}]`);
      return {
        issuer: str(issuer.issuer, `bearer_issuers[${i}].issuer`),
        audience: optStr(issuer.audience, `bearer_issuers[${i}].audience`),
        publicKeyPem: String(issuer.public_key_pem ?? ''),
        orgClaim: optStr(issuer.org_claim, `bearer_issuers[${i}].org_claim`) ?? 'org',
      };
    }),
    // Kept as written: references are resolved when a credential is checked, not stored.
    machineCredentials: list(root.machine_credentials, 'machine_credentials').map((c, i) => str(c, `machine_credentials[${i}]`)),
  };
}

function obj(value: unknown, where: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(`${where || 'the file'} must be a mapping`);
  return value as Record<string, unknown>;
}

function list(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ConfigError(`${where} must be a list`);
  return value;
}

function str(value: unknown, where: string): string {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string' || value === '') throw new ConfigError(`${where} must be a non-empty string`);
  return value;
}

function optStr(value: unknown, where: string): string | undefined {
  return value === undefined || value === null ? undefined : str(value, where);
}

function resolve(value: string, env: NodeJS.ProcessEnv, where: string): string {
  return value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const resolved = env[name];
    if (resolved === undefined) throw new ConfigError(`${where} references environment variable ${name}, which is not set`);
    return resolved;
  });
}
