import type { ProjectedEvent } from '@svc/infrastructure/projection/projection';
import { organizationsProjection } from './organizations.projection';

describe('organizations projection', () => {
  it('replaces only the stored hash of a re-hashed key (owner and organization unchanged)', () => {
    // The handler reads the event, its organization, position and resource name; not the raw record.
    const projected: Omit<ProjectedEvent, 'record'> = {
      event: { type: 'ApiKeyRehashed', data: { secretHash: '$scrypt$N=131072,r=8,p=1$s$h', updateTime: '2026-01-01T00:00:00Z' } },
      org: 'acme',
      pos: 7,
      resourceName: 'api-keys/alice-key',
    };
    const ops = organizationsProjection.handle(projected as ProjectedEvent);
    expect(ops).toEqual([{ op: 'update', collection: 'apikeys', id: 'apikey|alice-key', pos: 7, update: { $set: { secretHash: '$scrypt$N=131072,r=8,p=1$s$h' } } }]);
  });
});
