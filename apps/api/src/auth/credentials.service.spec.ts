import { randomBytes, scryptSync } from 'node:crypto';
import type { CommandBus } from '@nestjs/cqrs';
import * as secretHash from '@svc/infrastructure/auth/secret-hash';
import { needsRehash, verifySecret } from '@svc/infrastructure/auth/secret-hash';
import { ACCESS_STAMP, docId } from '@svc/infrastructure/projection/projection';
import type { Doc, ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import type { DecideAndAppend } from '../cqrs/decide-and-append';
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
    const service = new CredentialsService(reads, bus);

    expect(await service.authenticate('alice-key', 'wrong')).toBeNull();
    const [a, b] = await Promise.all([service.authenticate('alice-key', 'alice-secret'), service.authenticate('alice-key', 'alice-secret')]);
    expect([a?.actor, b?.actor]).toEqual(['users/alice', 'users/alice']);
    await done;
    // Two verifications raced above; neither they nor a later request send a second upgrade.
    expect((await service.authenticate('alice-key', 'alice-secret'))?.actor).toBe('users/alice');

    expect(sent).toHaveLength(1);
    const { stream, projection } = sent[0];
    expect([stream.streamId, projection]).toEqual(['apikey-acme:api-keys/alice-key', 'organizations']);
    const command = stream.command as { type: string; replaces: string; secretHash: string };
    expect([command.type, command.replaces]).toEqual(['RehashApiKey', OLD]);
    expect([verifySecret('alice-secret', command.secretHash), needsRehash(command.secretHash)]).toEqual([true, false]);
  });

  it('runs one slow hash for a burst of requests of one pair on a cold cache', async () => {
    const bus = { execute: async () => ({ state: null, position: null, events: [], replayed: false }) } as unknown as CommandBus;
    const service = new CredentialsService(reads, bus);
    const verify = jest.mocked(secretHash.verifySecretAsync);
    verify.mockClear();
    const principals = await Promise.all(Array.from({ length: 16 }, () => service.authenticate('alice-key', 'alice-secret')));
    expect(principals.map((p) => p?.actor)).toEqual(Array(16).fill('users/alice'));
    expect(verify).toHaveBeenCalledTimes(1);
    // A wrong secret is its own pair: verified (and refused) on its own.
    expect(await service.authenticate('alice-key', 'wrong')).toBeNull();
    expect(verify).toHaveBeenCalledTimes(2);
  });
});
