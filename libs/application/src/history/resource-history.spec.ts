import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noteSpec } from '@svc/domain/notes/note.resource';
import type { Actor } from '@svc/domain/shared/decider';
import { type ResourceCommand, resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import type { EventStore, NewEvent, ReadStreamOptions } from '@svc/infrastructure/event-store/event-store.port';
import { SqliteEventStore } from '@svc/infrastructure/event-store/sqlite-event-store';
import { ROLE_CHANGES } from '../areas/roles/access.projection';
import { accessProjection } from '../areas/roles/access.projection';
import { projectPage, commitPage } from '@svc/infrastructure/projection/apply-page';
import { SqliteReadStore } from '@svc/infrastructure/read-store/sqlite-read-store/sqlite-read-store';
import { HISTORY_CHUNK, historyOf, readAsOf, readHistory } from './resource-history';
import { historyTarget } from './targets';

const UPDATES = HISTORY_CHUNK * 2 + 37;
const actor: Actor = { org: 'acme', actor: 'users/alice', subject: 'users/alice', permissions: ['KNOWLEDGE_WRITE'], now: '2026-01-01T00:00:00.000Z' };

describe('history reads of a long stream', () => {
  let dir: string;
  let store: SqliteEventStore;
  const target = historyTarget('acme', 'notes/long')!;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-history-'));
    store = new SqliteEventStore({ file: join(dir, 'events.db') });
    // Decided like the command service would, appended in batches (a command per event would fold the stream each time).
    const decider = resourceDecider(noteSpec);
    const commands: ResourceCommand[] = [{ type: 'Create', actor, id: 'long', resource: { displayName: 'v0', toolName: 'sqldb_query' } }];
    for (let i = 1; i <= UPDATES; i++) commands.push({ type: 'Update', actor, name: 'notes/long', resource: { displayName: `v${i}` }, scope: 'all-provided' });
    let state = decider.initialState();
    const events: NewEvent[] = [];
    for (const command of commands) {
      for (const event of decider.decide(command, state)) {
        state = decider.evolve(state, event);
        events.push({ id: randomUUID(), type: event.type, data: event.data as Record<string, unknown>, metadata: { org: 'acme', actor: actor.actor, subject: actor.subject, correlationId: 'c', causationId: 'c', occurredAt: actor.now, schemaVersion: 1 } });
      }
    }
    const stream = resourceStreamId(noteSpec, 'acme', 'notes/long');
    for (let at = 0; at < events.length; at += 200) await store.append(stream, events.slice(at, at + 200), at === 0 ? 'no_stream' : BigInt(at - 1));
  });
  afterAll(() => {
    store.close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The store, counting the events each read hands out. */
  function counting(): { events: EventStore; read: () => number } {
    let read = 0;
    const events = Object.create(store) as EventStore;
    events.readStream = async (id: string, options?: ReadStreamOptions) => {
      const records = await store.readStream(id, options);
      read += records.length;
      return records;
    };
    return { events, read: () => read };
  }

  it('pages oldest first across chunks exactly like one fold of the whole stream, reading only as far as each page needs', async () => {
    const whole = historyOf(await store.readStream(target.stream), target);
    expect(whole).toHaveLength(UPDATES + 1);
    const { events, read } = counting();
    const first = await readHistory(events, target, { pageSize: 10 });
    expect(first.entries).toEqual(whole.slice(0, 10));
    expect(read()).toBeLessThanOrEqual(HISTORY_CHUNK);
    const pages = [first.entries];
    let token = first.nextPageToken;
    while (token) {
      const page = await readHistory(store, target, { pageSize: 400, pageToken: token });
      pages.push(page.entries);
      token = page.nextPageToken;
    }
    expect(pages.flat()).toEqual(whole);
  });

  it('pages newest first across chunks, each page the next older one, nothing skipped or repeated', async () => {
    const whole = historyOf(await store.readStream(target.stream), target).reverse();
    const pages = [];
    let token = '';
    do {
      const page = await readHistory(store, target, { orderBy: 'time desc', pageSize: 333, pageToken: token || undefined });
      pages.push(page.entries);
      token = page.nextPageToken;
    } while (token);
    expect(pages.flat()).toEqual(whole);
  });

  it('reads an as-of version only up to that version', async () => {
    const { events, read } = counting();
    const asOf = await readAsOf(events, target, { version: 3 });
    expect(asOf).toMatchObject({ version: 3, resource: { displayName: 'v3' } });
    expect(read()).toBe(4);
    expect((await readAsOf(store, target, { version: UPDATES })).resource.displayName).toBe(`v${UPDATES}`);
  });
});

describe('history of a role (the access fold updates its state in place)', () => {
  const T = (i: number) => `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`;
  const role = (name: string, permissions: string[], isDefault = false) => ({ name, displayName: name, description: '', permissions, system: name === 'roles/admin', isDefault, createTime: T(0), updateTime: T(0) });
  const events: Array<{ type: string; data: Record<string, unknown> }> = [
    { type: 'AccessInitialized', data: { admin: role('roles/admin', ['ROLES_WRITE'], true) } },
    { type: 'RoleCreated', data: { role: role('roles/ops', ['AGENTS_WRITE']) } },
    ...Array.from({ length: 20 }, (_, i) => ({ type: 'MemberAdded', data: { member: `users/u${i}`, roles: ['roles/ops'] } })),
    { type: 'RoleUpdated', data: { name: 'roles/ops', set: { permissions: ['AGENTS_WRITE', 'KNOWLEDGE_WRITE'] }, updateTime: T(1) } },
    { type: 'DefaultRoleSet', data: { name: 'roles/ops', previous: 'roles/admin', updateTime: T(2) } },
    { type: 'RolesAssigned', data: { member: 'users/u0', roles: [], previous: ['roles/ops'] } },
    { type: 'RoleDeleted', data: { name: 'roles/admin', deleteTime: T(3) } },
  ];
  const records = events.map((event, i) => ({
    ...event,
    id: randomUUID(),
    streamId: 'access-acme',
    revision: BigInt(i),
    position: { commit: BigInt(i), prepare: BigInt(i) },
    metadata: { org: 'acme', actor: 'users/alice', subject: 'users/alice', correlationId: 'c', causationId: 'c', occurredAt: T(i % 60), schemaVersion: 1 },
    created: T(i % 60),
  }));

  it("diffs each event against the role as it was before it, not a state the fold has since changed", () => {
    const ops = historyOf(records, historyTarget('acme', 'roles/ops')!);
    expect(ops.map((e) => [e.type, e.set, e.unset])).toEqual([
      ['RoleCreated', role('roles/ops', ['AGENTS_WRITE']), []],
      ['RoleUpdated', { permissions: ['AGENTS_WRITE', 'KNOWLEDGE_WRITE'], updateTime: T(1) }, []],
      ['DefaultRoleSet', { isDefault: true, updateTime: T(2) }, []],
    ]);
    const admin = historyOf(records, historyTarget('acme', 'roles/admin')!);
    expect(admin.map((e) => [e.type, e.set, e.unset])).toEqual([
      ['AccessInitialized', role('roles/admin', ['ROLES_WRITE'], true), []],
      ['DefaultRoleSet', { isDefault: false, updateTime: T(2) }, []],
      ['RoleDeleted', { deleteTime: T(3) }, []],
    ]);
  });

  it('reads a role as of a version before later changes', async () => {
    const store = { readStream: async (_id: string, o?: ReadStreamOptions) => records.slice(Number(o?.fromRevision ?? 0n)).slice(0, o?.maxCount ?? records.length) } as unknown as EventStore;
    const asOf = await readAsOf(store, historyTarget('acme', 'roles/ops')!, { version: 21 });
    expect(asOf.resource).toEqual(role('roles/ops', ['AGENTS_WRITE']));
  });

  describe('from the role changelog (a view over the access events)', () => {
    let dir: string;
    let reads: SqliteReadStore;
    const streamReads: number[] = [];
    const stream = {
      readStream: async (_id: string, o?: ReadStreamOptions) => {
        streamReads.push(Number(o?.fromRevision ?? 0n));
        return records.slice(Number(o?.fromRevision ?? 0n)).slice(0, o?.maxCount ?? records.length);
      },
    } as unknown as EventStore;
    const project = async (keep: (collection: string) => boolean) => {
      const page = projectPage(records, [{ projection: accessProjection }]);
      for (const batch of page.batches) batch.ops = batch.ops.filter((op) => keep(op.collection));
      await commitPage(reads, page);
    };
    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'svc-role-history-'));
      reads = new SqliteReadStore({ file: join(dir, 'read.db') });
      streamReads.length = 0;
    });
    afterEach(async () => {
      await reads.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("answers a role's history and as-of reads without reading the access stream, as the stream would", async () => {
      await project(() => true);
      for (const name of ['roles/ops', 'roles/admin']) {
        const fromStream = await readHistory(stream, historyTarget('acme', name)!, { pageSize: 2 });
        const fromChangelog = await readHistory(stream, historyTarget('acme', name, reads)!, { pageSize: 2 });
        expect(fromChangelog.entries).toEqual(fromStream.entries);
        const next = { pageSize: 2, pageToken: fromChangelog.nextPageToken };
        expect((await readHistory(stream, historyTarget('acme', name, reads)!, next)).entries).toEqual((await readHistory(stream, historyTarget('acme', name)!, next)).entries);
        const newest = { pageSize: 1, orderBy: 'time desc' };
        const page = await readHistory(stream, historyTarget('acme', name, reads)!, newest);
        expect(page.entries).toEqual((await readHistory(stream, historyTarget('acme', name)!, newest)).entries);
        const older = { ...newest, pageToken: page.nextPageToken };
        expect((await readHistory(stream, historyTarget('acme', name, reads)!, older)).entries).toEqual((await readHistory(stream, historyTarget('acme', name)!, older)).entries);
      }
      streamReads.length = 0;
      await readHistory(stream, historyTarget('acme', 'roles/ops', reads)!, {});
      expect((await readAsOf(stream, historyTarget('acme', 'roles/ops', reads)!, { version: 21 })).resource).toEqual(role('roles/ops', ['AGENTS_WRITE']));
      expect((await readAsOf(stream, historyTarget('acme', 'roles/ops', reads)!, { version: 22 })).resource).toEqual({ ...role('roles/ops', ['AGENTS_WRITE', 'KNOWLEDGE_WRITE']), updateTime: T(1) });
      await expect(readHistory(stream, historyTarget('acme', 'roles/none', reads)!, {})).rejects.toThrow(/not found/);
      await expect(readHistory(stream, historyTarget('globex', 'roles/ops', reads)!, {})).rejects.toThrow(/not found/);
      expect(streamReads).toEqual([]);
    });

    it('reads the stream for a role the changelog does not hold yet (projected before it existed)', async () => {
      await project((collection) => collection !== ROLE_CHANGES);
      const fromStream = await readHistory(stream, historyTarget('acme', 'roles/ops')!, {});
      expect((await readHistory(stream, historyTarget('acme', 'roles/ops', reads)!, {})).entries).toEqual(fromStream.entries);
      expect(streamReads.length).toBeGreaterThan(0);
    });
  });
});
