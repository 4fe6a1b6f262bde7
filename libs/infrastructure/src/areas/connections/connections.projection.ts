import type { ConnectionEvent } from '@svc/domain/connections/connection.decider';
import { docId, type Projection } from '../../projection/projection';

/** Connections from the operator configuration; secrets stay sealed (references or ciphertext). */
export const connectionsProjection: Projection = {
  name: 'connections',
  version: 1,
  collections: ['connections'],
  indexes: { connections: ['name', 'connectionType', 'displayName'] },
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
