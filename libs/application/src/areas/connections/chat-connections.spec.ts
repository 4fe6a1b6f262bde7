import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '@svc/infrastructure/sqlite/driver';
import type { DomainEvent } from '@svc/domain/shared/decider';
import type { RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { SqliteReadStore } from '@svc/infrastructure/read-store';
import { chatConnectionsOfTeam } from './chat-connections';
import { connectionsProjection } from './connections.projection';

/** The connections read model as the projector builds it: its declared indexes, then its events. */
async function project(store: SqliteReadStore, connections: Array<{ org: string; name: string; chat: Record<string, unknown> }>): Promise<void> {
  for (const [collection, paths] of Object.entries(connectionsProjection.indexes)) {
    await store.ensureIndexes(collection, paths, connectionsProjection.listIndexes?.[collection], connectionsProjection.crossOrgIndexes?.[collection]);
  }
  const ops = connections.flatMap(({ org, name, chat }, i) => {
    const connection = { name, displayName: name, description: '', connectionType: 'CONNECTION_TYPE_CHAT', connectionDetails: { chat } };
    const event = { type: 'ConnectionConfigured', data: { connection, createTime: '2026-01-01T00:00:00Z' } } as unknown as DomainEvent;
    return connectionsProjection.handle({ event, record: {} as RecordedEvent, org, resourceName: name, pos: i + 1 });
  });
  await store.commit({ checkpoint: 'connections', position: { commit: BigInt(ops.length), prepare: BigInt(ops.length) }, ops });
}

describe('chatConnectionsOfTeam (the chat webhook finds its connections by workspace)', () => {
  let dir: string;
  let store: SqliteReadStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-chat-connections-'));
    store = new SqliteReadStore({ file: join(dir, 'read.db') });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds a workspace past the first hundred chat connections, in any organization and either spelling', async () => {
    const others = Array.from({ length: 150 }, (_, i) => ({ org: `org${String(i).padStart(3, '0')}`, name: 'connections/chat', chat: { team_id: `T${i}` } }));
    await project(store, [...others, { org: 'zeta', name: 'connections/chatops', chat: { team_id: 'T-LATE' } }, { org: 'zulu', name: 'connections/slack', chat: { teamId: 'T-LATE' } }]);
    const found = await chatConnectionsOfTeam(store, 'T-LATE', 100);
    expect(found.map((d) => `${String(d._org)}/${String(d.name)}`).sort()).toEqual(['zeta/connections/chatops', 'zulu/connections/slack']);
    expect(await chatConnectionsOfTeam(store, 'T-NONE', 100)).toEqual([]);
  });

  it('reads the workspace index, not the whole collection', async () => {
    await project(store, [{ org: 'acme', name: 'connections/chat', chat: { team_id: 'T1' } }]);
    const db = openSqlite(join(dir, 'read.db'), { readonly: true });
    try {
      const columns = (index: string) => (db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').pluck().all(index) as string[]);
      expect(columns('ix:connections:connectionDetails.chat.team_id')).toEqual(['p:connectionDetails.chat.team_id', '_org']);
      expect(columns('ix:connections:connectionDetails.chat.teamId')).toEqual(['p:connectionDetails.chat.teamId', '_org']);
      const plan = store.explain('connections', { connectionType: 'CONNECTION_TYPE_CHAT', $or: [{ 'connectionDetails.chat.team_id': 'T1' }, { 'connectionDetails.chat.teamId': 'T1' }] });
      expect(plan.exactFilter).toBe(true);
      const steps = (db.prepare(`EXPLAIN QUERY PLAN SELECT doc FROM ${plan.table} WHERE ${plan.where}`).all(...plan.params) as { detail: string }[]).map((r) => r.detail);
      expect(steps.join('\n')).toContain('ix:connections:connectionDetails.chat.team_id');
      expect(steps).toContain('MULTI-INDEX OR');
      expect(steps.join('\n')).not.toMatch(/^SCAN /m);
    } finally {
      db.close();
    }
  });
});
