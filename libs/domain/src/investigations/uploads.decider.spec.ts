import type { UploadEvent } from '@svc/contracts/investigations/upload.events';
import type { Actor } from '../shared/decider';
import { givenFor } from '../shared/testing';
import { type UploadCommand, uploadsDecider } from './uploads.decider';

const given = givenFor(uploadsDecider);
const SHA = 'a'.repeat(64);
const KEY = `acme/7b0c6e3a-3f0e-4a8e-9b0e-1c2d3e4f5a6b/${SHA}`;
const KEY2 = `acme/0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0/${SHA}`;
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T12:00:00.000Z';
const DAY1 = '2026-01-02T00:00:00.000Z';
const DAY1_5 = '2026-01-02T12:00:00.000Z';
const at = (now: string): Actor => ({ org: 'acme', actor: 'users/alice', subject: 'users/alice', permissions: ['INVESTIGATIONS_WRITE'], now });
const record = (now: string, blobKey: string, expireTime: string): UploadCommand => ({ type: 'RecordUpload', actor: at(now), sha256: SHA, sizeBytes: 10, blobKey, expireTime });
const uploaded: UploadEvent = { type: 'ArtifactUploaded', data: { sha256: SHA, sizeBytes: 10, blobKey: KEY, uploadTime: T0, expireTime: DAY1 } };
const referenced: UploadEvent = { type: 'ArtifactUploadReferenced', data: { by: 'investigations/i1', referenceTime: T1 } };
const expired: UploadEvent = { type: 'ArtifactUploadExpired', data: { blobKey: KEY, sizeBytes: 10, expireTime: DAY1 } };

describe('upload hold aggregate', () => {
  it('an upload holds its key until its expire time', () => {
    given().when(record(T0, KEY, DAY1)).then([uploaded]);
  });

  it('uploading held content again renews an unreferenced hold and stores nothing new', () => {
    given([uploaded]).when(record(T1, KEY2, DAY1_5)).then([{ type: 'ArtifactUploadRenewed', data: { expireTime: DAY1_5 } }]);
    given([uploaded, referenced]).when(record(T1, KEY2, DAY1_5)).then([]);
  });

  it('a reference needs a held upload: never uploaded and expired answer alike', () => {
    const reference: UploadCommand = { type: 'ReferenceUpload', actor: at(T1), sha256: SHA, by: 'investigations/i1' };
    given().when(reference).thenFails('FAILED_PRECONDITION', /no upload of sha256 a{64} is held by this organization/);
    given([uploaded, expired]).when(reference).thenFails('FAILED_PRECONDITION', /no upload of sha256 a{64} is held by this organization/);
    given([uploaded]).when(reference).then([referenced]);
    given([uploaded, referenced]).when({ ...reference, by: 'investigations/i2' }).then([]);
  });

  it('only a live, unreferenced hold past its time expires, leaving its key to reclaim', () => {
    given([uploaded]).when({ type: 'ExpireUpload', actor: at(T1) }).then([]);
    given([uploaded]).when({ type: 'ExpireUpload', actor: at(DAY1) }).then([expired]);
    given([uploaded, referenced]).when({ type: 'ExpireUpload', actor: at(DAY1_5) }).then([]);
    given([uploaded, expired]).when({ type: 'ExpireUpload', actor: at(DAY1_5) }).then([]);
  });

  it('an expired hold is uploaded afresh under its new key; the old key is reclaimed once', () => {
    const history = [uploaded, expired];
    const again: UploadEvent = { type: 'ArtifactUploaded', data: { sha256: SHA, sizeBytes: 10, blobKey: KEY2, uploadTime: DAY1_5, expireTime: '2026-01-03T12:00:00.000Z' } };
    given(history).when(record(DAY1_5, KEY2, '2026-01-03T12:00:00.000Z')).then([again]);
    const reclaim: UploadCommand = { type: 'ReclaimBlob', actor: at(DAY1_5), blobKey: KEY };
    given([...history, again]).when(reclaim).then([{ type: 'ArtifactBlobReclaimed', data: { blobKey: KEY } }]);
    given([...history, again, { type: 'ArtifactBlobReclaimed', data: { blobKey: KEY } }]).when(reclaim).then([]);
    given([...history, again]).when({ ...reclaim, blobKey: KEY2 }).then([]);
  });
});
