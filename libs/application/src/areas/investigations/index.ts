/**
 * Investigations, their sessions' artifact namespaces and the organizations' upload holds, as one
 * projection (one checkpoint), so CreateInvestigation, which waits for it, is answered once the
 * investigation and the artifacts it imported are readable, and an upload is answered once the
 * organization's usage counts it.
 */
import { SESSION_ARTIFACTS_IMPORTED, SESSION_ARTIFACTS_STORE, type SessionArtifactsImportedData } from '@svc/contracts/investigations/artifact.events';
import { investigationsApi } from '@svc/contracts/investigations/investigations.contract';
import {
  ARTIFACT_BLOB_RECLAIMED,
  ARTIFACT_UPLOAD_EXPIRED,
  ARTIFACT_UPLOAD_REFERENCED,
  ARTIFACT_UPLOAD_RENEWED,
  ARTIFACT_UPLOADED,
  UPLOAD_USAGE_STORE,
  UPLOADS_STORE,
  type UploadEvent,
} from '@svc/contracts/investigations/upload.events';
import { investigationSpec } from '@svc/domain/investigations/investigation.resource';
import type { WriteOp } from '@svc/infrastructure/read-store/read-store.port';
import { combineProjections } from '@svc/infrastructure/projection/combine';
import { docId, type Projection, type ProjectedEvent } from '@svc/infrastructure/projection/projection';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';
import { area } from '../area';
import { investigationStatusReactor } from './investigation-status.reactor';
import { uploadSweepReactor } from './upload-sweep';

/**
 * One document per artifact: `{session, name, sha256, contentType, contentEncoding?, sizeBytes,
 * createTime}`, and `_blob`, the key its bytes are stored under (absent for artifacts imported
 * before uploads were held per organization: their key is the sha256).
 */
const sessionArtifacts: Projection = {
  name: SESSION_ARTIFACTS_STORE,
  version: 1,
  collections: [SESSION_ARTIFACTS_STORE],
  indexes: { [SESSION_ARTIFACTS_STORE]: ['session'] },
  handle(e) {
    if (e.event.type !== SESSION_ARTIFACTS_IMPORTED) return [];
    const data = e.event.data as unknown as SessionArtifactsImportedData;
    return data.artifacts.map(({ blobKey, ...artifact }) => ({
      op: 'insert' as const,
      collection: SESSION_ARTIFACTS_STORE,
      doc: {
        _id: docId(e.org, `${data.session}/artifacts/${artifact.name}`),
        _org: e.org,
        ...(blobKey === undefined ? {} : { _blob: blobKey }),
        session: data.session,
        ...artifact,
        createTime: data.importTime,
      },
    }));
  },
};

const UPLOAD_EVENTS = new Set<string>([ARTIFACT_UPLOADED, ARTIFACT_UPLOAD_RENEWED, ARTIFACT_UPLOAD_REFERENCED, ARTIFACT_UPLOAD_EXPIRED, ARTIFACT_BLOB_RECLAIMED]);

/**
 * Upload holds, for the expiry sweep (`status`, `expireTime`, `_reclaimCount`: how many expired
 * keys' bytes are not deleted yet; which ones, the hold's own stream says), and per organization the bytes its holds count against its quota.
 */
const uploads: Projection = {
  name: UPLOADS_STORE,
  version: 1,
  collections: [UPLOADS_STORE, UPLOAD_USAGE_STORE],
  indexes: { [UPLOADS_STORE]: ['status', 'expireTime', '_reclaimCount'] },
  handle(e) {
    if (!UPLOAD_EVENTS.has(e.event.type)) return [];
    const event = e.event as UploadEvent;
    const hold = (update: Record<string, Record<string, unknown>>): WriteOp => ({ op: 'update', collection: UPLOADS_STORE, id: docId(e.org, e.resourceName), pos: e.pos, update, upsert: true });
    switch (event.type) {
      case ARTIFACT_UPLOADED: {
        const { sha256, sizeBytes, uploadTime, expireTime } = event.data;
        return [hold({ $set: { _org: e.org, sha256, status: 'LIVE', sizeBytes, uploadTime, expireTime } }), usage(e, sizeBytes)];
      }
      case ARTIFACT_UPLOAD_RENEWED:
        return [hold({ $set: { expireTime: event.data.expireTime } })];
      case ARTIFACT_UPLOAD_REFERENCED:
        return [hold({ $set: { status: 'REFERENCED' }, $unset: { expireTime: '' } })];
      case ARTIFACT_UPLOAD_EXPIRED:
        return [hold({ $set: { status: 'EXPIRED' }, $unset: { expireTime: '' }, $inc: { _reclaimCount: 1 } }), usage(e, -event.data.sizeBytes)];
      case ARTIFACT_BLOB_RECLAIMED:
        return [hold({ $inc: { _reclaimCount: -1 } })];
    }
  },
};

function usage(e: ProjectedEvent, bytes: number): WriteOp {
  return { op: 'update', collection: UPLOAD_USAGE_STORE, id: usageDocId(e.org), pos: e.pos, update: { $set: { _org: e.org }, $inc: { bytes } }, upsert: true };
}

export const investigationsProjection = combineProjections('investigations', 1, [resourceProjection(investigationSpec, investigationsApi), sessionArtifacts, uploads]);

export const investigationsArea = area('investigations', {
  resources: [{ spec: investigationSpec, api: investigationsApi }],
  projections: [investigationsProjection],
  reactors: [investigationStatusReactor, uploadSweepReactor],
});

/** The `_id` of an organization's usage document in UPLOAD_USAGE_STORE. */
export const usageDocId = (org: string): string => docId(org, '~usage');
