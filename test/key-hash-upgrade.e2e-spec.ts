import { randomBytes, scryptSync } from 'node:crypto';
import { join } from 'node:path';
import { apiKeyDecider } from '@svc/domain/organizations/organization.decider';
import { needsRehash, verifySecret } from '@svc/infrastructure/auth/secret-hash';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import { SqliteEventStore } from '@svc/infrastructure/event-store';
import { SqliteReadStore } from '@svc/infrastructure/read-store/sqlite-read-store';
import { ALICE, eventually, Stack } from './support/harness';

const STREAM = 'apikey-acme:api-keys/alice-key';

describe('API key hashes: an outdated hash is upgraded on use by a running api', () => {
  let stack: Stack;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  beforeAll(async () => {
    stack = await Stack.start();
    events = new SqliteEventStore({ file: join(stack.dataDir, 'events.db') });
    reads = new SqliteReadStore({ file: join(stack.dataDir, 'read.db') });
  });
  afterAll(async () => {
    await events.close();
    await reads.close();
    await stack.destroy();
  });

  it('a key stored with a first-format hash still authenticates, and its hash is re-issued once at today\'s cost', async () => {
    // Put a first-format hash (N=2^14) of Alice's secret in place, as keys issued by earlier versions hold.
    const commands = new CommandService(events);
    const current = (await commands.stateOf(apiKeyDecider, STREAM)).secretHash!;
    const salt = randomBytes(16);
    const legacy = `scrypt$16384$8$1$${salt.toString('base64url')}$${scryptSync(ALICE.password, salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64url')}`;
    const actor = { org: 'acme', actor: 'operator-config', subject: 'operator-config', permissions: [], now: new Date().toISOString() };
    await commands.handle({ decider: apiKeyDecider, streamId: STREAM, command: { type: 'RehashApiKey', actor, replaces: current, secretHash: legacy }, context: { actor } });
    // The api verifies against the key document, once the projector has written the old hash there.
    await eventually(async () => ((await reads.collection('apikeys').findOne({ _id: 'apikey|alice-key' }))?.secretHash === legacy ? true : undefined));

    const requests = await Promise.all([1, 2, 3].map(() => stack.request('GET', '/v1/auth', { as: ALICE })));
    expect(requests.map((r) => r.status)).toEqual([200, 200, 200]);

    const upgraded = await eventually(async () => {
      const stream = await events.readStream(STREAM);
      return stream.at(-1)?.type === 'ApiKeyRehashed' && (stream.at(-1)!.data as { secretHash: string }).secretHash !== legacy ? stream : undefined;
    });
    const rehashes = upgraded.filter((e) => e.type === 'ApiKeyRehashed');
    // The first (ours) put the old hash in; the api's upgrade is the only other one.
    expect(rehashes).toHaveLength(2);
    const stored = (rehashes[1].data as { secretHash: string }).secretHash;
    expect([stored.startsWith('$scrypt$N=131072,r=8,p=1$'), verifySecret(ALICE.password, stored), needsRehash(stored)]).toEqual([true, true, false]);
    expect(rehashes[1].metadata).toMatchObject({ actor: 'users/alice' });

    expect((await stack.request('GET', '/v1/auth', { as: ALICE })).status).toBe(200);
    expect((await events.readStream(STREAM)).filter((e) => e.type === 'ApiKeyRehashed')).toHaveLength(2);
  });
});
