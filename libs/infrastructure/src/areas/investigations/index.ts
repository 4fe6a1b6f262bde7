/**
 * Investigations and their sessions' artifact namespaces, as one projection (one checkpoint), so
 * CreateInvestigation, which waits for it, is answered once both the investigation and the
 * artifacts it imported are readable.
 */
import { SESSION_ARTIFACTS_IMPORTED, SESSION_ARTIFACTS_STORE, type SessionArtifactsImportedData } from '@svc/contracts/investigations/artifact.events';
import { investigationsApi } from '@svc/contracts/investigations/investigations.contract';
import { investigationSpec } from '@svc/domain/investigations/investigation.resource';
import { combineProjections } from '../../projection/combine';
import { docId, type Projection } from '../../projection/projection';
import { resourceProjection } from '../../projection/resource.projection';
import { area } from '../area';

/** One document per artifact: `{session, name, sha256, contentType, contentEncoding?, sizeBytes, createTime}`. */
const sessionArtifacts: Projection = {
  name: SESSION_ARTIFACTS_STORE,
  version: 1,
  collections: [SESSION_ARTIFACTS_STORE],
  indexes: { [SESSION_ARTIFACTS_STORE]: ['session'] },
  handle(e) {
    if (e.event.type !== SESSION_ARTIFACTS_IMPORTED) return [];
    const data = e.event.data as unknown as SessionArtifactsImportedData;
    return data.artifacts.map((artifact) => ({
      op: 'insert' as const,
      collection: SESSION_ARTIFACTS_STORE,
      doc: { _id: docId(e.org, `${data.session}/artifacts/${artifact.name}`), _org: e.org, session: data.session, ...artifact, createTime: data.importTime },
    }));
  },
};

export const investigationsProjection = combineProjections('investigations', 1, [resourceProjection(investigationSpec, investigationsApi), sessionArtifacts]);

export const investigationsArea = area('investigations', {
  resources: [{ spec: investigationSpec, api: investigationsApi }],
  projections: [investigationsProjection],
});
