import { randomBytes, scryptSync } from 'node:crypto';
import type { CommandBus } from '@nestjs/cqrs';
import type { DomainError } from '@svc/domain/shared/domain-error';
import * as secretHash from '@svc/infrastructure/auth/secret-hash';
import { needsRehash, verifySecret } from '@svc/infrastructure/auth/secret-hash';
import { ACCESS_STAMP, docId } from '@svc/infrastructure/projection/projection';
import type { Doc, ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import type { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { authLimitSettings } from '@svc/infrastructure/config/env';
import { AuthLimits } from './auth-limits';
import { CredentialsService } from './credentials.service';

// The real hash functions, with the async verification counted (how many slow hashes ran).
jest.mock('@svc/infrastructure/auth/secret-hash', () => {
  const actual = jest.requireActual<typeof import('@svc/infrastructure/auth/secret-hash')>('@svc/infrastructure/auth/secret-hash');
  return { ...actual, verifySecretAsync: jest.fn(actual.verifySecretAsync) };
});

/** A hash in the first stored format (N=2^14), as keys issued before the cost was raised hold. */
function legacyHash(secret: string): string {
  const salt = randomBytes(16);
  return `scrypt$16384$8$1$${salt.toString('base64url')}$${scryptSync(secret, salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64url')}`;
}

const OLD = legacyHash('alice-secret');
const docs: Record<string, Doc[]> = {
  apikeys: [{ _id: 'apikey|alice-key', _org: 'acme', _pos: 1, principal: 'users/alice', secretHash: OLD }],
  members: [
    { _id: docId('acme', 'users/alice'), _org: 'acme', roles: [] },
    { _id: docId('acme', ACCESS_STAMP), _org: 'acme', _pos: 1 },
  ],
};
// The reads by _id and the one find the service makes; nothing else of the port is used.
const byId = (collection: string, id: string): Doc | null => (docs[collection] ?? []).find((d) => d._id === id) ?? null;
const reads = {
  collection: (name: string) => ({
    findOne: async (filter: { _id: string }) => byId(name, filter._id),
    find: async () => [],
  }),
  findByIds: async (keys: Array<{ collection: string; id: string }>) => keys.map((k) => byId(k.collection, k.id)),
} as unknown as ReadStore;

const ADDRESS = '192.0.2.1';
const newService = (bus: CommandBus, env: NodeJS.ProcessEnv = {}) => new CredentialsService(reads, bus, new AuthLimits(authLimitSettings(env)));

describe('CredentialsService', () => {
  it('upgrades an outdated hash once, through the command path, after the secret verified', async () => {
    const sent: DecideAndAppend<unknown, unknown, never>[] = [];
    let delivered: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (delivered = resolve));
    const bus = {
      execute: async (command: DecideAndAppend<unknown, unknown, never>) => {
        sent.push(command);
        delivered();
        return { state: null, position: null, events: [], replayed: false };
      },
    } as unknown as CommandBus;
    const service = newService(bus);

    expect(await service.authenticate('alice-key', 'wrong', ADDRESS)).toBeNull();
    const [a, b] = await Promise.all([service.authenticate('alice-key', 'alice-secret', ADDRESS), service.authenticate('alice-key', 'alice-secret', ADDRESS)]);
    expect([a?.actor, b?.actor]).toEqual(['users/alice', 'users/alice']);
    await done;
    // Two verifications raced above; neither they nor a later request send a second upgrade.
    expect((await service.authenticate('alice-key', 'alice-secret', ADDRESS))?.actor).toBe('users/alice');

    expect(sent).toHaveLength(1);
    const { stream, projection } = sent[0];
    expect([stream.streamId, projection]).toEqual(['apikey-acme:api-keys/alice-key', 'organizations']);
    const command = stream.command as { type: string; replaces: string; secretHash: string };
    expect([command.type, command.replaces]).toEqual(['RehashApiKey', OLD]);
    expect([verifySecret('alice-secret', command.secretHash), needsRehash(command.secretHash)]).toEqual([true, false]);
  });

  it('runs one slow hash for a burst of requests of one pair on a cold cache', async () => {
    const bus = { execute: async () => ({ state: null, position: null, events: [], replayed: false }) } as unknown as CommandBus;
    const service = newService(bus);
    const verify = jest.mocked(secretHash.verifySecretAsync);
    verify.mockClear();
    const principals = await Promise.all(Array.from({ length: 16 }, () => service.authenticate('alice-key', 'alice-secret', ADDRESS)));
    expect(principals.map((p) => p?.actor)).toEqual(Array(16).fill('users/alice'));
    expect(verify).toHaveBeenCalledTimes(1);
    // A wrong secret is its own pair: verified (and refused) on its own.
    expect(await service.authenticate('alice-key', 'wrong', ADDRESS)).toBeNull();
    expect(verify).toHaveBeenCalledTimes(2);
  });
});

describe('CredentialsService under the limits of failed attempts', () => {
  const bus = { execute: async () => ({ state: null, position: null, events: [], replayed: false }) } as unknown as CommandBus;
  const verify = jest.mocked(secretHash.verifySecretAsync);
  const refusal = (service: CredentialsService, username: string, secret: string, address = ADDRESS) =>
    service.authenticate(username, secret, address).then(
      () => null,
      (error: unknown) => error as DomainError,
    );

  beforeEach(() => verify.mockClear());

  it("checks an unknown key username like a wrong secret (one slow hash at today's cost), and a repeated failed pair costs no hash", async () => {
    const service = newService(bus);
    expect(await service.authenticate('nobody-key', 'guess', ADDRESS)).toBeNull();
    expect(verify).toHaveBeenCalledTimes(1);
    expect(verify.mock.calls[0][1]).toMatch(/^\$scrypt\$N=131072,r=8,p=1\$/);
    expect(await service.authenticate('nobody-key', 'guess', ADDRESS)).toBeNull();
    expect(await service.authenticate('alice-key', 'wrong', ADDRESS)).toBeNull();
    expect(await service.authenticate('alice-key', 'wrong', ADDRESS)).toBeNull();
    expect(verify).toHaveBeenCalledTimes(2);
    // The right secret of a key is not held back by that key's failed pairs.
    expect((await service.authenticate('alice-key', 'alice-secret', ADDRESS))?.actor).toBe('users/alice');
  });

  it('refuses a flooded key username with RESOURCE_EXHAUSTED and the wait, even its right secret, but not a pair verified before', async () => {
    const service = newService(bus, { SVC_AUTH_FAILURES_PER_KEY_PER_MINUTE: '3', SVC_AUTH_FAILURES_PER_ADDRESS_PER_MINUTE: '0' });
    expect((await service.authenticate('alice-key', 'alice-secret', ADDRESS))?.actor).toBe('users/alice');
    for (const guess of ['a', 'b', 'c']) expect(await service.authenticate('alice-key', guess, `198.51.100.${guess.charCodeAt(0)}`)).toBeNull();
    const limited = await refusal(service, 'alice-key', 'd');
    expect(limited).toMatchObject({ code: 'RESOURCE_EXHAUSTED', reason: 'RATE_LIMIT_EXCEEDED', metadata: { scope: 'api_key' } });
    expect(Number(limited?.metadata.retryAfterSeconds)).toBeGreaterThan(10); // one attempt back at 3 a minute: 20 s
    expect(verify).toHaveBeenCalledTimes(4);
    // Another username has its own attempts; the pair verified before the flood is still served.
    expect(await service.authenticate('bob-key', 'x', ADDRESS)).toBeNull();
    expect((await service.authenticate('alice-key', 'alice-secret', ADDRESS))?.actor).toBe('users/alice');

    const fresh = newService(bus, { SVC_AUTH_FAILURES_PER_KEY_PER_MINUTE: '3', SVC_AUTH_FAILURES_PER_ADDRESS_PER_MINUTE: '0' });
    for (const guess of ['a', 'b', 'c']) expect(await fresh.authenticate('alice-key', guess, ADDRESS)).toBeNull();
    expect(await refusal(fresh, 'alice-key', 'alice-secret')).toMatchObject({ code: 'RESOURCE_EXHAUSTED', metadata: { scope: 'api_key' } });
  });

  it('limits failed attempts per client address, over every username', async () => {
    const service = newService(bus, { SVC_AUTH_FAILURES_PER_KEY_PER_MINUTE: '0', SVC_AUTH_FAILURES_PER_ADDRESS_PER_MINUTE: '2' });
    expect(await service.authenticate('alice-key', 'a', ADDRESS)).toBeNull();
    expect(await service.authenticate('bob-key', 'b', ADDRESS)).toBeNull();
    const limited = await refusal(service, 'carol-key', 'c');
    expect(limited).toMatchObject({ code: 'RESOURCE_EXHAUSTED', metadata: { scope: 'address' } });
    // One attempt back at 2 a minute: at most 30 s, less the time the hashes above took.
    expect(Number(limited?.metadata.retryAfterSeconds)).toBeGreaterThan(20);
    expect(verify).toHaveBeenCalledTimes(2);
    expect((await service.authenticate('alice-key', 'alice-secret', '203.0.113.9'))?.actor).toBe('users/alice');
  });

  it('counts only hashes that failed: a verified pair gives its attempt back, a failed pair repeated costs none', async () => {
    const service = newService(bus, { SVC_AUTH_FAILURES_PER_KEY_PER_MINUTE: '2' });
    expect(await service.authenticate('alice-key', 'a', ADDRESS)).toBeNull();
    for (let i = 0; i < 5; i++) expect(await service.authenticate('alice-key', 'a', ADDRESS)).toBeNull();
    expect((await service.authenticate('alice-key', 'alice-secret', ADDRESS))?.actor).toBe('users/alice');
    expect(await service.authenticate('alice-key', 'b', ADDRESS)).toBeNull();
    expect(await refusal(service, 'alice-key', 'c')).toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
  });
});
