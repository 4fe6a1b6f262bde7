import type { ConnectionEvent } from '@svc/domain/connections/connection.decider';
import { docId, type Projection } from '@svc/infrastructure/projection/projection';
import type { WriteOp } from '@svc/infrastructure/read-store/read-store.port';
import { CHAT_TEAM_PATHS } from './chat-connections';
import { TRACKER_PROJECT_PATH } from './tracker-connections';

/**
 * Where an inbound webhook finds its connection: one document per valid webhook token, keyed by the
 * token's SHA-256 (a lookup by `_id`, in any organization: the URL names no organization).
 */
export const WEBHOOK_TOKENS = 'webhook-tokens';
export const webhookTokenId = (tokenHash: string) => `webhook|${tokenHash}`;

/** Connections (operator configuration, OAuth callbacks) and their webhook tokens; secrets stay sealed. */
export const connectionsProjection: Projection = {
  name: 'connections',
  version: 3,
  collections: ['connections', WEBHOOK_TOKENS],
  indexes: { connections: ['name', 'connectionType', 'displayName'], [WEBHOOK_TOKENS]: [] },
  // The chat and tracker webhooks find a delivery's connections by workspace or project, in whichever organization.
  crossOrgIndexes: { connections: [...CHAT_TEAM_PATHS, TRACKER_PROJECT_PATH] },
  handle({ event, org, pos }) {
    const e = event as ConnectionEvent;
    switch (e.type) {
      case 'ConnectionConfigured':
        return [created(org, pos, e.data.connection, e.data.createTime)];
      case 'ConnectionReconfigured':
        return [updated(org, pos, e.data.connection, e.data.updateTime)];
      case 'ConnectionAuthorized':
        return [e.data.created ? created(org, pos, e.data.connection, e.data.time) : updated(org, pos, e.data.connection, e.data.time)];
      case 'ConnectionWebhookRegistered': {
        const ops: WriteOp[] = [
          {
            op: 'update',
            collection: WEBHOOK_TOKENS,
            id: webhookTokenId(e.data.tokenHash),
            pos,
            update: { $set: { connection: e.data.name, kind: e.data.kind, registerTime: e.data.updateTime, _org: org } },
            upsert: true,
          },
          { op: 'update', collection: 'connections', id: docId(org, e.data.name), pos, update: { $set: { updateTime: e.data.updateTime } } },
        ];
        for (const retired of e.data.retiredTokenHashes) ops.push({ op: 'delete', collection: WEBHOOK_TOKENS, id: webhookTokenId(retired) });
        return ops;
      }
      default:
        return [];
    }
  },
};

function created(org: string, pos: number, connection: object, time: string): WriteOp {
  const name = (connection as { name: string }).name;
  return { op: 'update', collection: 'connections', id: docId(org, name), pos, update: { $set: { ...connection, createTime: time, updateTime: time, _org: org } }, upsert: true };
}

function updated(org: string, pos: number, connection: object, time: string): WriteOp {
  const name = (connection as { name: string }).name;
  return { op: 'update', collection: 'connections', id: docId(org, name), pos, update: { $set: { ...connection, updateTime: time } } };
}
