import { randomBytes, scryptSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { apiKeyDecider } from '@svc/domain/organizations/organization.decider';
import { accessDecider } from '@svc/domain/roles/access.decider';
import { needsRehash, verifySecret } from '@svc/infrastructure/auth/secret-hash';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import { SqliteEventStore } from '@svc/infrastructure/event-store/sqlite-event-store';
import { SqliteReadStore } from '@svc/infrastructure/read-store/sqlite-read-store';
import { localCommandBus } from '../commands/command-sender';
import { applyOperatorConfig } from './apply';
import { ConfigError, parseOperatorConfig } from '@svc/infrastructure/config/operator-config';
import { SecretBox } from '@svc/infrastructure/config/secrets';

const base = {
  organizations: [
    {
      id: 'acme',
      display_name: 'Acme',
      members: [{ user: 'alice', roles: ['admin'], api_keys: ['alice-key:${env:ALICE_SECRET}'] }],
      service_accounts: [{ id: 'deployer', roles: [], api_keys: ['deployer-key:s3cret'] }],
      connections: [{ id: 'db', type: 'CONNECTION_TYPE_SQLDB', details: { sqldb: { host: 'h', password: 'inline-pw', token: '${env:DB_TOKEN}' } } }],
    },
  ],
};

describe('operator configuration: parsing', () => {
  it('resolves ${env:NAME} in API key pairs and names every problem with its path', () => {
    const config = parseOperatorConfig(base, { ALICE_SECRET: 'from-env' });
    expect(config.organizations[0].members[0].apiKeys).toEqual([{ keyId: 'alice-key', secret: 'from-env' }]);
    expect(() => parseOperatorConfig(base, {})).toThrow(/organizations\[0\]\.members\[0\]\.api_keys\[0\].*ALICE_SECRET/);
    expect(() => parseOperatorConfig({ organizations: [{ id: 'x', members: [{ user: 'a', api_keys: ['no-colon'] }] }] })).toThrow(ConfigError);
    expect(() => parseOperatorConfig({ organizations: [{ id: 'x' }, { id: 'x' }] })).toThrow(/appears twice/);
    expect(() =>
      parseOperatorConfig({
        organizations: [
          { id: 'a', members: [{ user: 'u', api_keys: ['k:1'] }] },
          { id: 'b', members: [{ user: 'v', api_keys: ['k:2'] }] },
        ],
      }),
    ).toThrow(/key usernames are global/);
    expect(() => parseOperatorConfig({ organizations: 'acme' })).toThrow(/organizations must be a list/);
  });
});

describe('operator configuration: applying', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let apply: (raw: unknown) => ReturnType<typeof applyOperatorConfig>;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-'));
    events = new SqliteEventStore({ file: path.join(dir, 'events.db') });
    reads = new SqliteReadStore({ file: path.join(dir, 'read.db') });
    const secrets = SecretBox.fromEnvironment(dir, {});
    apply = (raw) =>
      applyOperatorConfig(parseOperatorConfig(raw, { ALICE_SECRET: 'alice-pw' }), { bus: localCommandBus(new CommandService(events)), reads, secrets });
  });
  afterEach(async () => {
    await events.close();
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is idempotent: a second apply of the same file appends nothing', async () => {
    const first = await apply(base);
    expect(first.changes).toBeGreaterThan(0);
    const head = await events.headPosition();
    const second = await apply(base);
    expect(second).toEqual({ position: null, changes: 0 });
    expect(await events.headPosition()).toEqual(head);
  });

  it('stores secrets only hashed or sealed, never in clear', async () => {
    await apply(base);
    const all = JSON.stringify(await events.readAll({ maxCount: 1000 }), (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
    expect(all).not.toContain('alice-pw');
    expect(all).not.toContain('s3cret');
    expect(all).not.toContain('inline-pw');
    expect(all).toContain('${env:DB_TOKEN}');
    expect(all).toMatch(/scrypt\$/);
  });

  it('a changed secret rotates the key; roles changed in the file are not re-applied to an existing member', async () => {
    await apply(base);
    const rotated = structuredClone(base);
    rotated.organizations[0].service_accounts[0].api_keys = ['deployer-key:new-secret'];
    rotated.organizations[0].members[0].roles = [];
    const result = await apply(rotated);
    const types = (await events.readAll({ after: undefined, maxCount: 1000 })).slice(-result.changes).map((e) => e.type);
    expect(types).toEqual(['ApiKeyRotated']);
  });

  it('an unchanged secret whose stored hash predates today\'s cost is re-hashed once by apply', async () => {
    await apply(base);
    // Put a first-format hash (N=2^14) of the same secret in place, as keys issued before hold.
    const stream = 'apikey-acme:api-keys/deployer-key';
    const current = (await new CommandService(events).stateOf(apiKeyDecider, stream)).secretHash!;
    const salt = randomBytes(16);
    const legacy = `scrypt$16384$8$1$${salt.toString('base64url')}$${scryptSync('s3cret', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64url')}`;
    const actor = { org: 'acme', actor: 'operator-config', subject: 'operator-config', permissions: [], now: new Date().toISOString() };
    await new CommandService(events).handle({ decider: apiKeyDecider, streamId: stream, command: { type: 'RehashApiKey', actor, replaces: current, secretHash: legacy }, context: { actor } });

    const result = await apply(base);
    const appended = (await events.readAll({ maxCount: 1000 })).slice(-result.changes);
    expect(appended.map((e) => [e.streamId, e.type])).toEqual([[stream, 'ApiKeyRehashed']]);
    const upgraded = (appended[0].data as { secretHash: string }).secretHash;
    expect([verifySecret('s3cret', upgraded), needsRehash(upgraded)]).toEqual([true, false]);
    expect(await apply(base)).toEqual({ position: null, changes: 0 });
  });

  it('a new organization and a new member are added as events', async () => {
    await apply(base);
    const grown = structuredClone(base) as typeof base & { organizations: Array<Record<string, unknown>> };
    grown.organizations[0].members.push({ user: 'bob', roles: [], api_keys: ['bob-key:pw'] });
    grown.organizations.push({ id: 'globex', members: [{ user: 'gina', roles: ['admin'], api_keys: ['gina-key:pw'] }] } as never);
    const result = await apply(grown);
    // The new organization's seeded resources (system tags, ...) are the seed sources' business.
    const types = (await events.readAll({ maxCount: 1000 }))
      .slice(-result.changes)
      .filter((e) => /^(organization|access|apikey)-/.test(e.streamId))
      .map((e) => e.type);
    expect(types).toEqual(['MemberAdded', 'ApiKeyIssued', 'OrganizationCreated', 'AccessInitialized', 'MemberAdded', 'ApiKeyIssued']);
  });

  it('declared roles are created once, before the members that hold them; the default one is what newcomers get', async () => {
    const withRoles = {
      organizations: [
        {
          id: 'acme',
          roles: [
            { id: 'responder', display_name: 'Responder', permissions: ['KNOWLEDGE_WRITE', 'INVESTIGATIONS_WRITE'], default: true },
            { id: 'viewer', permissions: [] },
          ],
          members: [{ user: 'rita', roles: ['responder'] }],
        },
      ],
    };
    const first = await apply(withRoles);
    const types = (await events.readAll({ maxCount: 1000 })).filter((e) => e.streamId === 'access-acme').map((e) => e.type);
    expect(types).toEqual(['AccessInitialized', 'RoleCreated', 'DefaultRoleSet', 'RoleCreated', 'MemberAdded']);
    const state = await new CommandService(events).stateOf(accessDecider, 'access-acme');
    expect(state.defaultRole).toBe('roles/responder');
    expect(state.roles['roles/responder']).toMatchObject({ displayName: 'Responder', permissions: ['INVESTIGATIONS_WRITE', 'KNOWLEDGE_WRITE'], isDefault: true });
    expect(state.members['users/rita']).toEqual(['roles/responder']);
    expect(first.changes).toBeGreaterThan(0);

    // Re-applying, even with the file's role changed, appends nothing: the organization's edits win.
    const edited = structuredClone(withRoles);
    edited.organizations[0].roles[0].permissions = ['AGENTS_WRITE'];
    edited.organizations[0].roles[0].default = false;
    edited.organizations[0].roles[1].default = true;
    expect(await apply(edited)).toEqual({ position: null, changes: 0 });
  });
});

describe('SecretBox', () => {
  it('seals inline secrets, keeps env references, and opens both', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-'));
    const box = SecretBox.fromEnvironment(dir, {});
    const sealed = box.seal('hunter2');
    expect(sealed).toMatch(/^enc:v2:/);
    expect(sealed).not.toContain('hunter2');
    expect(box.open(sealed)).toBe('hunter2');
    expect(box.seal('${env:X}')).toBe('${env:X}');
    expect(box.open('${env:X}', { X: 'resolved' })).toBe('resolved');
    // The same data directory gives the same key, so another process can open it.
    expect(SecretBox.fromEnvironment(dir, {}).open(sealed)).toBe('hunter2');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
