import { SERVICE_REVISIONS_STORE as SERVICE_REVISIONS, serviceRevisionsApi } from '@svc/contracts/catalog/catalog.contract';
import { serviceRevisionOf } from '@svc/domain/catalog/service-revision';
import { serviceSpec } from '@svc/domain/catalog/service.resource';
import { resourceStreamId, type ResourceEvent } from '@svc/domain/shared/resource';
import { docId, type Projection } from '@svc/infrastructure/projection/projection';
import { changelogIndexes } from '@svc/infrastructure/projection/resource.projection';
import { withEtag } from '@svc/infrastructure/wire/etag';

/**
 * Service revisions are a view of each service's own stream: one document per event, written when
 * the event arrives and never changed (the upsert keeps a replayed event idempotent).
 */
export const serviceRevisionsProjection: Projection = {
  name: SERVICE_REVISIONS,
  version: 1,
  collections: [SERVICE_REVISIONS],
  indexes: changelogIndexes(serviceRevisionsApi),
  handle(e) {
    if (!e.record.streamId.startsWith(resourceStreamId(serviceSpec, e.org, ''))) return [];
    const revision = serviceRevisionOf(e.resourceName, Number(e.record.revision), e.event as ResourceEvent, {
      subject: e.record.metadata.subject,
      time: e.record.metadata.occurredAt,
    });
    if (!revision) return [];
    // The snapshot is the service as GetService answered right after the event, etag included.
    const doc = { ...revision, snapshot: withEtag(revision.snapshot), _org: e.org, _parent: e.resourceName };
    return [{ op: 'update', collection: SERVICE_REVISIONS, id: docId(e.org, revision.name), pos: e.pos, update: { $set: doc }, upsert: true }];
  },
};
