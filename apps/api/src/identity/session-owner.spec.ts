import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createEventStore } from '@svc/infrastructure/event-store';
import type { EventStore } from '@svc/infrastructure/event-store/event-store.port';
import { createReadStore } from '@svc/infrastructure/read-store';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { seedSession } from '../../../../test/support/session-fixture';
import { SessionOwners } from './session-owner';

describe('SessionOwners: a session name resolves to its one organization', () => {
  let dir: string;
  let events: EventStore;
  let reads: ReadStore;
  let owners: SessionOwners;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-owner-'));
    await seedSession(dir, 'acme', 'agents/triage/sessions/s1');
    await seedSession(dir, 'globex', 'agents/triage/sessions/s2');
    await seedSession(dir, 'acme', 'agents/triage/sessions/gone', { deleted: true });
    events = createEventStore({ SVC_DATA_DIR: dir });
    reads = await createReadStore({ SVC_DATA_DIR: dir });
    owners = new SessionOwners(events, reads);
  });
  afterAll(async () => {
    await events.close();
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads the organization from the name claim (SessionNameClaimed on sessionowner-<name>)', async () => {
    await expect(owners.resolve('agents/triage/sessions/s1')).resolves.toEqual({ org: 'acme', session: 'agents/triage/sessions/s1', agent: 'agents/triage' });
    await expect(owners.resolve('agents/triage/sessions/s2')).resolves.toMatchObject({ org: 'globex' });
  });

  it('answers NOT_FOUND for an unclaimed name and for a deleted session', async () => {
    await expect(owners.resolve('agents/triage/sessions/none')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(owners.resolve('agents/triage/sessions/gone')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers NOT_FOUND for a claimed name whose session was never created', async () => {
    await reads.commit({
      checkpoint: 'test-session-fixture',
      position: await events.headPosition(),
      ops: [{ op: 'delete', collection: 'sessions', id: 'acme|agents/triage/sessions/s1' }],
    });
    await expect(owners.resolve('agents/triage/sessions/s1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a name that is not agents/{agent}/sessions/{session}', async () => {
    await expect(owners.resolve('agents/triage')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/session must be/) });
  });
});
