import type { ApiKeyEvent, OrganizationEvent } from '@svc/domain/organizations/organization.decider';
import { docId, type Projection } from '@svc/infrastructure/projection/projection';

/**
 * Organizations and API keys. Key documents are keyed by the key's username alone (`apikey|<id>`):
 * authentication looks a key up before it knows the organization. They hold only the slow hash.
 */
export const organizationsProjection: Projection = {
  name: 'organizations',
  version: 1,
  collections: ['organizations', 'apikeys'],
  indexes: { organizations: ['name'], apikeys: ['principal'] },
  handle({ event, org, pos, resourceName }) {
    const e = event as OrganizationEvent | ApiKeyEvent;
    switch (e.type) {
      case 'OrganizationCreated':
        return [
          {
            op: 'update',
            collection: 'organizations',
            id: docId(org, e.data.organization),
            pos,
            update: { $set: { name: e.data.organization, displayName: e.data.displayName, createTime: e.data.createTime, _org: org } },
            upsert: true,
          },
        ];
      case 'OrganizationRenamed':
        return [
          {
            op: 'update',
            collection: 'organizations',
            id: docId(org, `organizations/${org}`),
            pos,
            update: { $set: { displayName: e.data.displayName, updateTime: e.data.updateTime } },
          },
        ];
      case 'ApiKeyIssued':
      case 'ApiKeyRotated': {
        const keyId = resourceName.slice('api-keys/'.length);
        return [
          {
            op: 'update',
            collection: 'apikeys',
            id: `apikey|${keyId}`,
            pos,
            update: { $set: { keyId, principal: e.data.principal, secretHash: e.data.secretHash, _org: org } },
            upsert: true,
          },
        ];
      }
      case 'ApiKeyRehashed':
        return [{ op: 'update', collection: 'apikeys', id: `apikey|${resourceName.slice('api-keys/'.length)}`, pos, update: { $set: { secretHash: e.data.secretHash } } }];
      default:
        return [];
    }
  },
};
