import * as fs from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { PERMISSIONS, isPermission } from '@svc/contracts/roles/permissions';
import { API_KEY_ID, ORGANIZATION_ID } from '@svc/domain/organizations/organization.decider';
import { userSubjectProblem } from '@svc/domain/organizations/user-subject';
import { ROLE_ID, ROLE_ID_MAX } from '@svc/domain/roles/access.decider';
import { providerList, serviceList, type ProviderConfig, type ServiceConfig } from './catalog-config';
import { ConfigError } from './config-error';
import { integrationsSection, NO_INTEGRATIONS, type IntegrationsConfig } from './integrations-config';
import { indicatorV2List, judgeIndicatorsV2, type IndicatorV2Config } from './indicators-v2-config';
import { resolveEnv } from './secrets';
import { addIssue, describeIssues, list, mapping, nonEmptyString, text } from './config-schema';

/** The operator configuration file (spec/operator-config.md), JSON or YAML. */
export interface OperatorConfig {
  organizations: OrganizationConfig[];
  workloadIssuers: WorkloadIssuerConfig[];
  bearerIssuers: BearerIssuerConfig[];
  machineCredentials: string[];
  /** `{integrations_url}` and the OAuth apps of the integration helpers. */
  integrations: IntegrationsConfig;
}

/** A workload issuer: its proofs may mint session tokens for sessions of `organizations` only. */
export interface WorkloadIssuerConfig {
  issuer: string;
  publicKeyPem: string;
  organizations: string[];
}

/** An identity provider: its tokens may sign in to `organizations` only (at most one issuer per organization). */
export interface BearerIssuerConfig {
  issuer: string;
  audience?: string;
  publicKeyPem: string;
  orgClaim: string;
  organizations: string[];
}

/** A role the file declares: created once; `isDefault` makes it the role new members get. */
export interface RoleConfig {
  id: string;
  displayName: string;
  description: string;
  permissions: string[];
  isDefault: boolean;
}

export interface OrganizationConfig {
  id: string;
  displayName: string;
  /** Created once, before the members (whose roles may name them). */
  roles: RoleConfig[];
  members: Array<{ user: string; roles: string[]; apiKeys: ApiKeyPair[] }>;
  serviceAccounts: Array<{ id: string; roles: string[]; apiKeys: ApiKeyPair[] }>;
  connections: ConnectionConfig[];
  /** The frozen service catalog, checked against the catalog's rules before anything is applied. */
  services: ServiceConfig[];
  providers: ProviderConfig[];
  /** Frozen v2 indicators and their relations, judged against this organization's connections. */
  indicatorsV2: IndicatorV2Config[];
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

/** Validates the whole file and reports every problem with its path at once, before anything is applied. */
export function parseOperatorConfig(raw: unknown, env: NodeJS.ProcessEnv = process.env): OperatorConfig {
  const result = operatorConfigSchema(env).safeParse(raw ?? {});
  if (!result.success) throw ConfigError.of(describeIssues(result.error.issues));
  return result.data;
}

/** The file's JSON Schema (docs/operator-config.schema.json), for editors and validators. */
export function operatorConfigJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(operatorConfigSchema({}), { io: 'input', target: 'draft-2020-12' }),
    title: 'svc operator configuration (SVC_CONFIG)',
    description: 'See spec/operator-config.md. Multi-word keys may also be written in lowerCamelCase. Strings may hold ${env:NAME} references.',
  };
}

/** The file's shape and rules; `env` resolves the `${env:NAME}` references of API key pairs. */
export function operatorConfigSchema(env: NodeJS.ProcessEnv): z.ZodType<OperatorConfig> {
  const keyPair = z
    .string({ error: 'must be "username:password"' })
    .meta({ description: '"username:password" (a Basic pair; ${env:NAME} references are resolved)' })
    .transform((written, ctx): ApiKeyPair => {
      let resolved: string;
      try {
        resolved = resolveEnv(written, env);
      } catch (error) {
        addIssue(ctx, (error as Error).message, [], true);
        return { keyId: '', secret: '' };
      }
      const colon = resolved.indexOf(':');
      if (colon <= 0 || colon === resolved.length - 1) addIssue(ctx, 'must be "username:password"');
      const keyId = resolved.slice(0, colon);
      if (colon > 0 && !API_KEY_ID.test(keyId)) addIssue(ctx, `has an API key username '${keyId}' that does not match ${API_KEY_ID.source}`);
      return { keyId, secret: resolved.slice(colon + 1) };
    });
  const roles = list(nonEmptyString()).meta({ description: 'role IDs, applied when the principal is first added (admin is seeded in every organization)' });
  const keys = list(keyPair).meta({ description: 'Basic API key pairs; usernames are unique across all organizations' });
  const member = mapping({ user: nonEmptyString().meta({ description: 'becomes users/{user}' }), roles, api_keys: keys }).transform((m, ctx) => {
    const user = m.user.replace(/^users\//, '');
    // The same safe set as bearer subjects: a configured `*` or invisible character would be as misleading.
    const problem = userSubjectProblem(user);
    if (problem !== null) addIssue(ctx, `user ID ${problem}`, ['user'], true);
    return { user, roles: m.roles ?? [], apiKeys: m.api_keys ?? [] };
  });
  const role = mapping({
    id: nonEmptyString().meta({ description: 'becomes roles/{id}; admin is the system role and cannot be declared' }),
    display_name: nonEmptyString().optional().meta({ description: 'default: the id' }),
    description: text().optional(),
    permissions: list(nonEmptyString()).meta({ description: `permission keys (${PERMISSIONS.join(', ')})` }),
    default: z.boolean({ error: 'must be true or false' }).optional().meta({ description: 'the role new members get (at most one per organization; default false)' }),
  }).transform((r, ctx): RoleConfig => {
    const id = r.id.replace(/^roles\//, '');
    if (!ROLE_ID.test(id) || id.length > ROLE_ID_MAX) {
      addIssue(ctx, `role ID '${id}' must be at most ${ROLE_ID_MAX} letters, digits, hyphens and underscores, starting with a letter or digit`, ['id'], true);
    }
    if (id === 'admin') addIssue(ctx, 'admin is the system role of every organization; it cannot be declared', ['id'], true);
    const permissions = r.permissions ?? [];
    permissions.forEach((key, i) => {
      if (!isPermission(key)) addIssue(ctx, `unknown permission '${key}'; known: ${PERMISSIONS.join(', ')}`, ['permissions', i], true);
    });
    return { id, displayName: r.display_name ?? id, description: r.description ?? '', permissions, isDefault: r.default === true };
  });
  const serviceAccount = mapping({ id: nonEmptyString().meta({ description: 'becomes service-accounts/{id}' }), roles, api_keys: keys }).transform((s) => ({
    id: s.id.replace(/^service-accounts\//, ''),
    roles: s.roles ?? [],
    apiKeys: s.api_keys ?? [],
  }));
  const tool = mapping({ tool: nonEmptyString(), enabled: z.boolean({ error: 'must be true or false' }).optional().meta({ description: 'default true' }) }).transform((t) => ({
    tool: t.tool,
    enabled: t.enabled !== false,
  }));
  const connection = mapping({
    id: nonEmptyString(),
    display_name: nonEmptyString().optional(),
    description: text().optional(),
    type: nonEmptyString().meta({ description: 'a CONNECTION_TYPE_... value' }),
    details: z
      .record(z.string(), z.unknown(), { error: 'must be a mapping' })
      .optional()
      .meta({ description: 'type-specific details, kept as written; secret fields are sealed, ${env:NAME} resolved at use' }),
    tools: list(tool),
  }).transform(
    (c): ConnectionConfig => ({
      id: c.id,
      displayName: c.display_name ?? c.id,
      description: c.description ?? '',
      type: c.type,
      details: c.details ?? {},
      tools: c.tools ?? [],
    }),
  );
  const organization = mapping({
    id: nonEmptyString(ORGANIZATION_ID),
    display_name: nonEmptyString().optional().meta({ description: 'default: the id' }),
    roles: list(role).meta({ description: 'roles created once (later edits through the API win); the one marked default is given to new members' }),
    members: list(member),
    service_accounts: list(serviceAccount).meta({ description: 'service-accounts/{id}, the actor of what they do' }),
    connections: list(connection).meta({ description: 'read-only through the API (GetConnection, ListConnections)' }),
    services: serviceList().meta({ description: 'the frozen service catalog, synced to match the file' }),
    providers: providerList().meta({ description: 'the catalog\'s providers (ListProviders), synced to match the file' }),
    indicators_v2: indicatorV2List(),
  }).transform(
    (o, ctx): OrganizationConfig => ({
      id: o.id,
      displayName: o.display_name ?? o.id,
      roles: judgeRoles(o.roles ?? [], ctx),
      members: o.members ?? [],
      serviceAccounts: o.service_accounts ?? [],
      connections: o.connections ?? [],
      services: o.services ?? [],
      providers: o.providers ?? [],
      indicatorsV2: judgeIndicatorsV2(o.indicators_v2 ?? [], o.connections ?? [], ctx),
    }),
  );
  // Required, so an issuer can never reach an organization the operator did not name for it.
  const issuerOrganizations = (what: string, note = '') =>
    z
      .array(nonEmptyString(ORGANIZATION_ID), { error: `must list the organizations this issuer ${what} (required)` })
      .min(1, `must list at least one organization this issuer ${what}`)
      .meta({ description: `the organizations this issuer ${what} (required; each declared in this file${note})` });
  const workloadIssuer = mapping({
    issuer: nonEmptyString(),
    public_key_pem: text().optional(),
    organizations: issuerOrganizations('may mint session tokens for'),
  }).transform((w): WorkloadIssuerConfig => ({ issuer: w.issuer, publicKeyPem: w.public_key_pem ?? '', organizations: w.organizations }));
  const bearerIssuer = mapping({
    issuer: nonEmptyString(),
    audience: nonEmptyString().optional(),
    public_key_pem: text().optional(),
    org_claim: nonEmptyString().optional().meta({ description: 'the claim holding the organization ID (default org)' }),
    organizations: issuerOrganizations('may sign in to', '; at most one bearer issuer per organization'),
  }).transform(
    (b): BearerIssuerConfig => ({ issuer: b.issuer, audience: b.audience, publicKeyPem: b.public_key_pem ?? '', orgClaim: b.org_claim ?? 'org', organizations: b.organizations }),
  );
  return mapping({
    organizations: list(organization),
    workload_issuers: list(workloadIssuer).meta({ description: 'who may present Svc-Workload proofs (JWTs) to MintAgentSessionToken' }),
    bearer_issuers: list(bearerIssuer).meta({ description: 'identity-provider JWTs accepted as Bearer' }),
    // Kept as written: references are resolved when a credential is checked, not stored.
    machine_credentials: list(nonEmptyString()).meta({ description: 'Basic pairs for the internal webhook endpoints' }),
    integrations: integrationsSection().optional().meta({ description: '{integrations_url} and the OAuth apps of StartCodehostOAuth, StartChatOAuth, StartTrackerOAuth' }),
  })
    .transform(
      (root): OperatorConfig => ({
        organizations: root.organizations ?? [],
        workloadIssuers: root.workload_issuers ?? [],
        bearerIssuers: root.bearer_issuers ?? [],
        machineCredentials: root.machine_credentials ?? [],
        integrations: root.integrations ?? NO_INTEGRATIONS,
      }),
    )
    .superRefine((config, ctx) => {
      // Organization IDs are unique; API key usernames are unique across every organization.
      const orgs = new Set<string>();
      const keyIds = new Set<string>();
      config.organizations.forEach((org, i) => {
        if (orgs.has(org.id)) addIssue(ctx, `organization '${org.id}' appears twice`, ['organizations', i, 'id'], true);
        orgs.add(org.id);
        const owners: Array<[string, Array<{ apiKeys: ApiKeyPair[] }>]> = [
          ['members', org.members],
          ['service_accounts', org.serviceAccounts],
        ];
        for (const [section, principals] of owners) {
          principals.forEach((p, j) =>
            p.apiKeys.forEach((key, k) => {
              if (keyIds.has(key.keyId)) {
                addIssue(ctx, `API key '${key.keyId}' appears twice; key usernames are global`, ['organizations', i, section, j, 'api_keys', k], true);
              }
              keyIds.add(key.keyId);
            }),
          );
        }
      });
      checkIssuers(config, orgs, ctx);
    });
}

/** At most one role marked default; role IDs unique within the organization. */
function judgeRoles(roles: RoleConfig[], ctx: z.RefinementCtx): RoleConfig[] {
  const ids = new Set<string>();
  let defaultAt = -1;
  roles.forEach((role, i) => {
    if (ids.has(role.id)) addIssue(ctx, `role '${role.id}' appears twice`, ['roles', i, 'id'], true);
    ids.add(role.id);
    if (!role.isDefault) return;
    if (defaultAt >= 0) addIssue(ctx, `roles '${roles[defaultAt].id}' and '${role.id}' are both marked default; at most one may be`, ['roles', i, 'default'], true);
    else defaultAt = i;
  });
  return roles;
}

/**
 * Each issuer appears once and names only organizations this file declares (a typo would otherwise
 * bind it to nothing, or to an organization added later by someone else's file). A bearer issuer is
 * the one authority on its organizations' `users/{sub}`: two identity providers on one organization
 * would each be able to sign in as the other's people, so an organization has at most one.
 */
function checkIssuers(config: OperatorConfig, declared: ReadonlySet<string>, ctx: z.RefinementCtx): void {
  const sections: Array<[string, Array<{ issuer: string; organizations: string[] }>]> = [
    ['workload_issuers', config.workloadIssuers],
    ['bearer_issuers', config.bearerIssuers],
  ];
  for (const [section, issuers] of sections) {
    const seen = new Set<string>();
    issuers.forEach((entry, i) => {
      if (seen.has(entry.issuer)) addIssue(ctx, `issuer '${entry.issuer}' appears twice`, [section, i, 'issuer'], true);
      seen.add(entry.issuer);
      entry.organizations.forEach((org, j) => {
        if (!declared.has(org)) addIssue(ctx, `organization '${org}' of issuer '${entry.issuer}' is not declared in this file`, [section, i, 'organizations', j], true);
      });
    });
  }
  const servedBy = new Map<string, string>();
  config.bearerIssuers.forEach((entry, i) =>
    entry.organizations.forEach((org, j) => {
      const other = servedBy.get(org);
      if (other !== undefined && other !== entry.issuer) {
        addIssue(ctx, `organization '${org}' is already served by bearer issuer '${other}'; an organization has at most one identity provider`, ['bearer_issuers', i, 'organizations', j], true);
      }
      servedBy.set(org, other ?? entry.issuer);
    }),
  );
}
