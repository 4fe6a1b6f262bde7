/**
 * A session's artifact namespace: `SessionArtifactsImported` on the stream
 * `sessionartifacts-<org>:agents/{a}/sessions/{s}`, appended before the session's seed. It records
 * references only; the bytes stay in the blob store, under the key of the organization's upload.
 */
export type ArtifactRecord = {
  /** Unique within the session. */
  name: string;
  sha256: string;
  contentType: string;
  contentEncoding?: string;
  sizeBytes: number;
  /** Where the bytes are stored (blob-store.port.ts); absent before uploads were held per organization (then the sha256). */
  blobKey?: string;
};

export type SessionArtifactsImportedData = {
  session: string;
  /** What the import came with (`investigations/{id}`). */
  source: string;
  artifacts: ArtifactRecord[];
  importTime: string;
};

export const SESSION_ARTIFACTS_IMPORTED = 'SessionArtifactsImported';

export type ArtifactEvent = { type: typeof SESSION_ARTIFACTS_IMPORTED; data: SessionArtifactsImportedData };

export function sessionArtifactsStreamId(org: string, session: string): string {
  return `sessionartifacts-${org}:${session}`;
}

/** Read model of the artifacts (one document per session and name). */
export const SESSION_ARTIFACTS_STORE = 'session-artifacts';
