import { randomUUID } from 'node:crypto';
import { SESSION_NAME_CLAIMED, sessionOwnerStreamId } from '@svc/contracts/sessions/session.events';
import { createEventStore } from '@svc/infrastructure/event-store';
import { createReadStore } from '@svc/infrastructure/read-store';
import { docId } from '@svc/infrastructure/projection/projection';

/**
 * A session as MintAgentSessionToken sees one, written straight into the stores of a data directory:
 * the name claim on `sessionowner-<name>` (as CreateSession appends it) and the `sessions` document
 * (as the sessions projection writes it). For the unit test of SessionOwners (apps/api/src/identity);
 * end-to-end tests create sessions through the API.
 */
export async function seedSession(dataDir: string, org: string, name: string, options: { deleted?: boolean } = {}): Promise<void> {
  const events = createEventStore({ SVC_DATA_DIR: dataDir });
  const reads = await createReadStore({ SVC_DATA_DIR: dataDir });
  try {
    const now = new Date().toISOString();
    const correlationId = randomUUID();
    const { position } = await events.append(
      sessionOwnerStreamId(name),
      [
        {
          id: randomUUID(),
          type: SESSION_NAME_CLAIMED,
          data: { org, name, claimTime: now },
          metadata: { org, actor: 'users/test', subject: 'users/test', correlationId, causationId: correlationId, occurredAt: now, schemaVersion: 1 },
        },
      ],
      'no_stream',
    );
    const deleted = options.deleted ? { deleteTime: now } : {};
    await reads.commit({
      checkpoint: 'test-session-fixture',
      position,
      ops: [{ op: 'update', collection: 'sessions', id: docId(org, name), pos: 1, update: { $set: { name, _org: org, ...deleted } }, upsert: true }],
    });
  } finally {
    await events.close();
    await reads.close();
  }
}
