import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DomainEvent } from '@svc/domain/shared/decider';
import type { RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { SqliteReadStore } from '@svc/infrastructure/read-store';
import { connectionsProjection, WEBHOOK_TOKENS, webhookTokenId } from './connections.projection';

describe('connections projection: webhook tokens', () => {
  let dir: string;
  let store: SqliteReadStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-webhook-tokens-'));
    store = new SqliteReadStore({ file: join(dir, 'read.db') });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps one document per valid token hash, found by key in any organization; a retired hash goes', async () => {
    const hash = (c: string) => c.repeat(64);
    const events = [
      { type: 'ConnectionConfigured', data: { connection: { name: 'connections/pd', connectionType: 'CONNECTION_TYPE_PAGER' }, createTime: 't0' } },
      ...['a', 'b', 'c'].map((c, i) => ({
        type: 'ConnectionWebhookRegistered',
        data: { name: 'connections/pd', kind: 'pager', tokenHash: hash(c), retiredTokenHashes: i === 2 ? [hash('a')] : [], updateTime: `t${i + 1}` },
      })),
    ] as unknown as DomainEvent[];
    const ops = events.flatMap((event, i) => connectionsProjection.handle({ event, record: {} as RecordedEvent, org: 'acme', resourceName: 'connections/pd', pos: i + 1 }));
    await store.commit({ checkpoint: 'connections', position: { commit: 4n, prepare: 4n }, ops });
    const tokens = store.collection(WEBHOOK_TOKENS);
    expect(await tokens.findOne({ _id: webhookTokenId(hash('a')) })).toBeNull();
    for (const c of ['b', 'c']) expect(await tokens.findOne({ _id: webhookTokenId(hash(c)) })).toMatchObject({ connection: 'connections/pd', kind: 'pager', _org: 'acme' });
    expect((await store.collection('connections').findOne({ _id: 'acme|connections/pd' }))?.updateTime).toBe('t3');
  });
});
