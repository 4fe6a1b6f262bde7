import type { ConnectionEvent } from '@svc/domain/connections/connection.decider';
import { docId, type Projection } from '@svc/infrastructure/projection/projection';
import { CHAT_TEAM_PATHS } from './chat-connections';
import { TRACKER_PROJECT_PATH } from './tracker-connections';

/** Connections from the operator configuration; secrets stay sealed (references or ciphertext). */
export const connectionsProjection: Projection = {
  name: 'connections',
  version: 1,
  collections: ['connections'],
  indexes: { connections: ['name', 'connectionType', 'displayName'] },
  // The chat and tracker webhooks find a delivery's connections by workspace or project, in whichever organization.
  crossOrgIndexes: { connections: [...CHAT_TEAM_PATHS, TRACKER_PROJECT_PATH] },
  handle({ event, org, pos }) {
    const e = event as ConnectionEvent;
    switch (e.type) {
      case 'ConnectionConfigured':
        return [
          {
            op: 'update',
            collection: 'connections',
            id: docId(org, e.data.connection.name),
            pos,
            update: { $set: { ...e.data.connection, createTime: e.data.createTime, updateTime: e.data.createTime, _org: org } },
            upsert: true,
          },
        ];
      case 'ConnectionReconfigured':
        return [
          {
            op: 'update',
            collection: 'connections',
            id: docId(org, e.data.connection.name),
            pos,
            update: { $set: { ...e.data.connection, updateTime: e.data.updateTime } },
          },
        ];
      default:
        return [];
    }
  },
};
