// The areas import the contracts, whose DTO decorators read design-time type metadata.
import 'reflect-metadata';
import type { RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { watchFilter, watchedEvent } from './event-view';
import { historyTarget } from './targets';

const record = (streamId: string, type: string, data: Record<string, unknown>): RecordedEvent => ({
  id: 'e1',
  streamId,
  revision: 0n,
  position: { commit: 7n, prepare: 7n },
  type,
  data,
  metadata: { org: 'acme', actor: 'users/alice', subject: 'users/alice', correlationId: 'c', causationId: 'c', occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 },
  created: '2026-01-01T00:00:00.001Z',
});

describe('watched events', () => {
  it('names the resource an event is about, for per-resource and aggregate streams', () => {
    expect(watchedEvent(record('note-acme:notes/n1', 'NoteCreated', {}))).toMatchObject({ resource: 'notes/n1', collection: 'notes', position: '7/7' });
    expect(watchedEvent(record('dimension-acme:services/s/dimensions/d', 'DimensionCreated', {}))?.collection).toBe('dimensions');
    expect(watchedEvent(record('access-acme', 'RoleUpdated', { name: 'roles/r', set: {} }))?.resource).toBe('roles/r');
    expect(watchedEvent(record('access-acme', 'RolesAssigned', { member: 'users/bob', roles: [] }))?.resource).toBe('users/bob');
    expect(watchedEvent(record('organization-acme', 'OrganizationRenamed', {}))?.resource).toBe('organizations/acme');
  });

  it('shows no secret: API key events not at all, connections without their details', () => {
    expect(watchedEvent(record('apikey-acme:api-keys/k', 'ApiKeyIssued', { secretHash: 'x' }))).toBeUndefined();
    const connection = { name: 'connections/c', displayName: 'C', connectionDetails: { sqldb: { password: 'sealed:abc' } } };
    const shown = watchedEvent(record('connection-acme:connections/c', 'ConnectionConfigured', { connection, createTime: 't' }));
    expect(shown?.data).toEqual({ connection: { name: 'connections/c', displayName: 'C' }, createTime: 't' });
  });

  it('filters with AIP-160 over type, resource, collection and actor; an unknown field is INVALID_ARGUMENT', () => {
    const event = watchedEvent(record('note-acme:notes/n1', 'NoteCreated', {}))!;
    expect(watchFilter('type = "Note*" AND actor = "users/alice"')(event)).toBe(true);
    expect(watchFilter('collection = "roles" OR resource = "notes/n2"')(event)).toBe(false);
    expect(watchFilter('')(event)).toBe(true);
    expect(() => watchFilter('colour = "red"')).toThrow(/colour/);
  });
});

describe('history targets', () => {
  it("finds each name's stream by its area's spec, the most specific pattern first", () => {
    expect(historyTarget('acme', 'notes/n1')?.stream).toBe('note-acme:notes/n1');
    expect(historyTarget('acme', 'roles/r')?.stream).toBe('access-acme');
    expect(historyTarget('acme', 'connections/c')?.stream).toBe('connection-acme:connections/c');
    expect(historyTarget('acme', 'services/s/dimensions/d')?.stream).toMatch(/^[a-z]+-acme:services\/s\/dimensions\/d$/);
    expect(historyTarget('acme', 'services/s/dimensions/d')?.stream).not.toMatch(/^service-/);
    expect(historyTarget('acme', 'users/bob')).toBeNull();
    expect(historyTarget('acme', 'nothing/x')).toBeNull();
  });
});
