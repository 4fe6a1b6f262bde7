import { PERMISSIONS } from '@svc/contracts/roles/permissions';
import { type Connection, connectionDecider } from '@svc/domain/connections/connection.decider';
import { apiKeyDecider, organizationDecider } from '@svc/domain/organizations/organization.decider';
import { accessDecider } from '@svc/domain/roles/access.decider';
import type { Actor, Decider, DomainEvent } from '@svc/domain/shared/decider';
import { DomainError } from '@svc/domain/shared/domain-error';
import { resourceName, resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import { hashSecret, needsRehash, verifySecret } from '@svc/infrastructure/auth/secret-hash';
import { comparePositions, type Position } from '@svc/infrastructure/event-store/event-store.port';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { ConfigError, type ConnectionConfig, type OperatorConfig } from '@svc/infrastructure/config/operator-config';
import { type SecretBox, sealSecrets } from '@svc/infrastructure/config/secrets';
import { SEED_SOURCES } from '@svc/infrastructure/config/seeds';
import type { CommandSender } from '../commands/command-sender';
import { DecideAndAppend } from '../commands/decide-and-append';

/** The actor recorded on events that come from the operator configuration. */
export const CONFIG_ACTOR = 'operator-config';

export interface ApplyResult {
  /** Position of the newest event appended, or null when the configuration was already in place. */
  position: Position | null;
  changes: number;
}

/**
 * Applies the configuration idempotently, each change as events through the same deciders the API
 * uses: what is there is left alone, what is new is added, what changed is updated. A member's
 * roles from the file apply only when the member is first added (later AssignRoles wins); a
 * declared role, and its default flag, only when the role is first created.
 */
export async function applyOperatorConfig(
  config: OperatorConfig,
  deps: { bus: CommandSender; reads: ReadStore; secrets: SecretBox; now?: () => Date },
): Promise<ApplyResult> {
  let position: Position | null = null;
  let changes = 0;
  const now = () => (deps.now ? deps.now() : new Date()).toISOString();
  for (const org of config.organizations) {
    const actor: Actor = { org: org.id, actor: CONFIG_ACTOR, subject: CONFIG_ACTOR, permissions: [...PERMISSIONS], now: now() };
    const run = async <S, C, E extends DomainEvent>(decider: Decider<S, C, E>, streamId: string, command: C) => {
      try {
        const result = await deps.bus.execute(new DecideAndAppend({ decider, streamId, command, context: { actor } }));
        if (result.position) {
          changes += result.events.length;
          if (!position || comparePositions(result.position, position) > 0) position = result.position;
        }
      } catch (error) {
        if (error instanceof DomainError) throw new ConfigError(`organization '${org.id}': ${error.message}`);
        throw error;
      }
    };
    await run(organizationDecider, `organization-${org.id}`, {
      type: 'ConfigureOrganization',
      actor,
      organizationId: org.id,
      displayName: org.displayName,
    });
    await run(accessDecider, `access-${org.id}`, { type: 'InitializeAccess', actor });
    // Before the members, whose roles may name them; created once, so later API edits win.
    for (const role of org.roles) {
      await run(accessDecider, `access-${org.id}`, {
        type: 'DeclareRole',
        actor,
        roleId: role.id,
        role: { displayName: role.displayName, description: role.description, permissions: role.permissions },
        isDefault: role.isDefault,
      });
    }
    const principals = [
      ...org.members.map((m) => ({ name: `users/${m.user}`, roles: m.roles, apiKeys: m.apiKeys })),
      ...org.serviceAccounts.map((s) => ({ name: `service-accounts/${s.id}`, roles: s.roles, apiKeys: s.apiKeys })),
    ];
    for (const sa of org.serviceAccounts) {
      await run(organizationDecider, `organization-${org.id}`, { type: 'AddServiceAccount', actor, serviceAccountId: sa.id });
    }
    for (const principal of principals) {
      await run(accessDecider, `access-${org.id}`, { type: 'AddMember', actor, member: principal.name, roles: principal.roles });
      for (const key of principal.apiKeys) {
        const owner = await deps.reads.collection('apikeys').findOne({ _id: `apikey|${key.keyId}` });
        if (owner && owner._org !== org.id) {
          throw new ConfigError(`API key '${key.keyId}' already belongs to another organization; key usernames are global`);
        }
        await run(apiKeyDecider, `apikey-${org.id}:api-keys/${key.keyId}`, {
          type: 'IssueApiKey',
          actor,
          keyId: key.keyId,
          principal: principal.name,
          hash: () => hashSecret(key.secret),
          matches: (stored: string) => verifySecret(key.secret, stored),
          outdated: needsRehash,
        });
      }
    }
    for (const connection of org.connections) {
      const configured = toConnection(connection, deps.secrets);
      await run(connectionDecider, `connection-${org.id}:${configured.name}`, { type: 'ConfigureConnection', actor, connection: configured });
    }
    for (const source of SEED_SOURCES) {
      for (const seed of await source(org, deps.reads)) {
        await run(resourceDecider(seed.spec), resourceStreamId(seed.spec, org.id, resourceName(seed.spec, seed.id, seed.parent)), {
          type: 'Sync',
          actor,
          id: seed.id,
          resource: seed.resource,
          mode: seed.mode,
          parent: seed.parent,
        });
      }
    }
  }
  return { position, changes };
}

/** Wire shape of a configured connection, secrets sealed (a reference or ciphertext, never clear). */
function toConnection(c: ConnectionConfig, secrets: SecretBox): Connection {
  return {
    name: `connections/${c.id}`,
    displayName: c.displayName,
    description: c.description,
    connectionType: c.type,
    connectionDetails: sealSecrets(c.details, secrets),
    toolConfigurations: c.tools,
  };
}
