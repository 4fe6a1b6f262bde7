/**
 * One organization's hold on uploaded content (`PUT /v1/artifacts/{sha256}`), on the stream
 * `upload-<org>:uploads/<sha256>`. Only an organization holding a live upload of a sha256 may
 * reference it from an investigation; an upload no investigation references expires, and its bytes
 * are then reclaimed. Other organizations' uploads of the same bytes are their own streams and their
 * own stored copies (docs/decisions.md, "Uploads").
 */
export const ARTIFACT_UPLOADED = 'ArtifactUploaded';
export const ARTIFACT_UPLOAD_RENEWED = 'ArtifactUploadRenewed';
export const ARTIFACT_UPLOAD_REFERENCED = 'ArtifactUploadReferenced';
export const ARTIFACT_UPLOAD_EXPIRED = 'ArtifactUploadExpired';
export const ARTIFACT_BLOB_RECLAIMED = 'ArtifactBlobReclaimed';

export type ArtifactUploadedData = {
  sha256: string;
  sizeBytes: number;
  /** Where the bytes are stored (blob-store.port.ts): `{org}/{upload id}/{sha256}`. */
  blobKey: string;
  uploadTime: string;
  /** When the upload expires unless an investigation references it first. */
  expireTime: string;
};

export type UploadEvent =
  | { type: typeof ARTIFACT_UPLOADED; data: ArtifactUploadedData }
  /** The same content uploaded again while held: the hold lasts longer, nothing more is stored. */
  | { type: typeof ARTIFACT_UPLOAD_RENEWED; data: { expireTime: string } }
  /** An investigation references the content: the upload no longer expires. */
  | { type: typeof ARTIFACT_UPLOAD_REFERENCED; data: { by: string; referenceTime: string } }
  | { type: typeof ARTIFACT_UPLOAD_EXPIRED; data: { blobKey: string; sizeBytes: number; expireTime: string } }
  /** The expired upload's bytes were deleted from the blob store. */
  | { type: typeof ARTIFACT_BLOB_RECLAIMED; data: { blobKey: string } };

export const uploadStreamId = (org: string, sha256: string): string => `upload-${org}:uploads/${sha256}`;

/** Read model: one document per organization and sha256 (`status`, `sizeBytes`, `expireTime`, `_reclaim`). */
export const UPLOADS_STORE = 'artifact-uploads';
/** Read model: one document per organization, `bytes` held by its live and referenced uploads (the quota's count). */
export const UPLOAD_USAGE_STORE = 'artifact-usage';
