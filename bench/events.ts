/**
 * NoteCreated events built exactly as the api's command executor builds them (stream id, payload,
 * metadata), for appending straight to the event store when the API would only slow the setup down.
 */
import { randomUUID } from 'node:crypto';
import type { NewEvent } from '@svc/infrastructure/event-store/event-store.port';

export const ACTOR = { org: 'acme', actor: 'users/alice', subject: 'users/alice' };

/** `note-<org>:notes/<id>`, the resource kit's stream naming (category = lowercased kind). */
export function noteStream(org: string, id: string): string {
  return `note-${org}:notes/${id}`;
}

export function noteCreated(org: string, id: string, index: number, now = new Date().toISOString()): NewEvent {
  const correlationId = randomUUID();
  return {
    id: randomUUID(),
    type: 'NoteCreated',
    data: {
      resource: {
        name: `notes/${id}`,
        displayName: `Note ${id}`,
        description: 'seeded directly into the event store by the benchmark',
        toolName: `tool-${index % 20}`,
        toolArgs: { query: `select ${index}`, limit: index % 100 },
        createTime: now,
        updateTime: now,
      },
    },
    metadata: {
      org,
      actor: ACTOR.actor,
      subject: ACTOR.subject,
      correlationId,
      causationId: correlationId,
      occurredAt: now,
      schemaVersion: 1,
    },
  };
}
