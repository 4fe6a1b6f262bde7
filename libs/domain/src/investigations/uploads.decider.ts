/**
 * An organization's hold on one uploaded sha256 (upload.events.ts). A hold is live after an upload,
 * referenced once an investigation uses it (for good: referenced content never expires), and expired
 * when its time passed unreferenced; an expired hold's bytes wait in `reclaim` until deleted. Never
 * having uploaded and having let the upload expire answer alike, so a reference reveals nothing of
 * other organizations' content.
 */
import {
  ARTIFACT_BLOB_RECLAIMED,
  ARTIFACT_UPLOAD_EXPIRED,
  ARTIFACT_UPLOAD_REFERENCED,
  ARTIFACT_UPLOAD_RENEWED,
  ARTIFACT_UPLOADED,
  type UploadEvent,
} from '@svc/contracts/investigations/upload.events';
import type { Actor, Decider } from '../shared/decider';
import { failedPrecondition } from '../shared/domain-error';

export type UploadStatus = 'NONE' | 'LIVE' | 'REFERENCED' | 'EXPIRED';

export interface UploadState {
  status: UploadStatus;
  blobKey: string | null;
  sizeBytes: number;
  expireTime: string | null;
  /** Blob keys of expired holds whose bytes are not deleted yet (at most a few). */
  reclaim: string[];
}

export type UploadCommand =
  | { type: 'RecordUpload'; actor: Actor; sha256: string; sizeBytes: number; blobKey: string; expireTime: string }
  | { type: 'ReferenceUpload'; actor: Actor; sha256: string; by: string }
  | { type: 'ExpireUpload'; actor: Actor }
  | { type: 'ReclaimBlob'; actor: Actor; blobKey: string };

/** The one answer for content this organization does not hold, whoever else may. */
export function notUploaded(sha256: string, field = 'sha256'): Error {
  return failedPrecondition(`${field}: no upload of sha256 ${sha256} is held by this organization (upload it with PUT /v1/artifacts/{sha256}; uploads no investigation references expire)`, 'ARTIFACT_NOT_UPLOADED');
}

const held = (state: UploadState) => state.status === 'LIVE' || state.status === 'REFERENCED';

export const uploadsDecider: Decider<UploadState, UploadCommand, UploadEvent> = {
  initialState: () => ({ status: 'NONE', blobKey: null, sizeBytes: 0, expireTime: null, reclaim: [] }),
  // In place (decider.ts, the fold contract): the reclaim list is not copied per event.
  evolve(state, event) {
    switch (event.type) {
      case ARTIFACT_UPLOADED:
        return { ...state, status: 'LIVE', blobKey: event.data.blobKey, sizeBytes: event.data.sizeBytes, expireTime: event.data.expireTime };
      case ARTIFACT_UPLOAD_RENEWED:
        return { ...state, expireTime: event.data.expireTime };
      case ARTIFACT_UPLOAD_REFERENCED:
        return { ...state, status: 'REFERENCED', expireTime: null };
      case ARTIFACT_UPLOAD_EXPIRED:
        state.reclaim.push(event.data.blobKey);
        state.status = 'EXPIRED';
        state.blobKey = null;
        state.sizeBytes = 0;
        state.expireTime = null;
        return state;
      case ARTIFACT_BLOB_RECLAIMED: {
        const at = state.reclaim.indexOf(event.data.blobKey);
        if (at >= 0) state.reclaim.splice(at, 1);
        return state;
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RecordUpload': {
        if (state.status === 'REFERENCED') return [];
        if (state.status === 'LIVE') {
          return state.expireTime !== null && command.expireTime > state.expireTime ? [{ type: ARTIFACT_UPLOAD_RENEWED, data: { expireTime: command.expireTime } }] : [];
        }
        const { sha256, sizeBytes, blobKey, expireTime } = command;
        return [{ type: ARTIFACT_UPLOADED, data: { sha256, sizeBytes, blobKey, uploadTime: command.actor.now, expireTime } }];
      }
      case 'ReferenceUpload':
        if (!held(state)) throw notUploaded(command.sha256);
        return state.status === 'LIVE' ? [{ type: ARTIFACT_UPLOAD_REFERENCED, data: { by: command.by, referenceTime: command.actor.now } }] : [];
      case 'ExpireUpload':
        if (state.status !== 'LIVE' || state.expireTime === null || state.expireTime > command.actor.now || state.blobKey === null) return [];
        return [{ type: ARTIFACT_UPLOAD_EXPIRED, data: { blobKey: state.blobKey, sizeBytes: state.sizeBytes, expireTime: state.expireTime } }];
      case 'ReclaimBlob':
        return state.reclaim.includes(command.blobKey) ? [{ type: ARTIFACT_BLOB_RECLAIMED, data: { blobKey: command.blobKey } }] : [];
    }
  },
};

/** Whether the organization may reference the content now: the state CreateInvestigation checks before appending anything. */
export function isHeld(state: UploadState): boolean {
  return held(state);
}
