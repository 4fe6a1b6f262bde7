/**
 * Uploads held per organization (docs/decisions.md, "Uploads"): the bytes are stored under a key
 * of the organization's own (blob-store.port.ts) and the hold is an event on
 * `upload-<org>:uploads/<sha256>`, so only the organization that uploaded content can reference it,
 * and a foreign sha256 answers exactly like one never uploaded. Each organization's holds count
 * against its quota; a hold no investigation references expires (the projector's upload sweep).
 */
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { UploadArtifactResponse } from '@svc/contracts/investigations/investigations.contract';
import { ARTIFACT_UPLOADED, UPLOAD_USAGE_STORE, type UploadEvent, uploadStreamId } from '@svc/contracts/investigations/upload.events';
import { isHeld, notUploaded, type UploadCommand, uploadsDecider, type UploadState } from '@svc/domain/investigations/uploads.decider';
import type { Actor } from '@svc/domain/shared/decider';
import { DomainError, invalid } from '@svc/domain/shared/domain-error';
import { usageDocId } from '@svc/application/areas/investigations';
import { BLOB_STORE, type BlobStore, uploadBlobKey } from '@svc/infrastructure/blobs';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import type { Settings } from '@svc/infrastructure/config/env';
import { READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { MAX_ARTIFACT_BYTES } from './artifact-limits';

/** The projection serving uploads (and CreateInvestigation): a command answers once it has caught up. */
const PROJECTION = 'investigations';

/** A hold CreateInvestigation may reference: where its bytes are and how many. */
export interface HeldUpload {
  sha256: string;
  blobKey: string;
  sizeBytes: number;
}

@Injectable()
export class Uploads {
  private readonly logger = new Logger('uploads');

  constructor(
    private readonly bus: CommandBus,
    private readonly commands: CommandService,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * Streams `content` into a key of the caller's organization, then records the hold. Content the
   * organization already holds is not stored twice: the new copy is deleted and the hold renewed.
   * What the quota leaves is the upload's limit, checked while the bytes arrive.
   */
  async upload(actor: Actor, sha256: string, content: AsyncIterable<Uint8Array>, declaredBytes: number | undefined): Promise<UploadArtifactResponse> {
    const quota = this.settings.artifactQuotaBytes;
    const used = await this.usage(actor.org);
    // Content the organization holds already counts once: uploading it again needs no more room.
    const holding = await this.commands.stateOf(uploadsDecider, uploadStreamId(actor.org, sha256));
    const room = quota - used + (isHeld(holding) ? holding.sizeBytes : 0);
    if (room <= 0 || (declaredBytes !== undefined && declaredBytes <= MAX_ARTIFACT_BYTES && declaredBytes > room)) throw quotaExceeded(quota, used);
    const limit = Math.min(MAX_ARTIFACT_BYTES, room);
    const blobKey = uploadBlobKey(actor.org, randomUUID(), sha256);
    let size: number;
    try {
      size = (await this.blobs.put(blobKey, content, { maxBytes: limit })).size;
    } catch (error) {
      if (limit < MAX_ARTIFACT_BYTES && error instanceof DomainError && error.reason === 'ARTIFACT_TOO_LARGE') throw quotaExceeded(quota, used);
      throw error;
    }
    const expireTime = new Date(Date.parse(actor.now) + this.settings.artifactUploadTtlMs).toISOString();
    let state: UploadState;
    try {
      const handled = await this.send(actor, sha256, { type: 'RecordUpload', actor, sha256, sizeBytes: size, blobKey, expireTime });
      state = handled.state;
      if (!handled.events.some((event) => event.type === ARTIFACT_UPLOADED)) await this.discard(blobKey);
    } catch (error) {
      // Keep the bytes only if the hold names them (the append may have landed before the error).
      const current = await this.commands.stateOf(uploadsDecider, uploadStreamId(actor.org, sha256)).catch(() => null);
      if (current !== null && current.blobKey !== blobKey) await this.discard(blobKey);
      throw error;
    }
    return { sha256, sizeBytes: String(state.sizeBytes), ...(state.status === 'LIVE' && state.expireTime !== null ? { expireTime: state.expireTime } : {}) };
  }

  /**
   * The holds behind an investigation's artifact references, judged without appending anything (a
   * foreign or unknown sha256 is the same FAILED_PRECONDITION). `field(i)` names the reference in
   * errors; together they hold at most `maxTotalBytes`.
   */
  async held(org: string, sha256s: readonly string[], field: (i: number) => string, maxTotalBytes: number): Promise<HeldUpload[]> {
    const held: HeldUpload[] = [];
    let total = 0;
    for (const [i, sha256] of sha256s.entries()) {
      const state = await this.commands.stateOf(uploadsDecider, uploadStreamId(org, sha256));
      if (!isHeld(state) || state.blobKey === null) throw notUploaded(sha256, field(i));
      total += state.sizeBytes;
      if (total > maxTotalBytes) throw invalid(`artifacts hold more than ${maxTotalBytes} bytes together`);
      held.push({ sha256, blobKey: state.blobKey, sizeBytes: state.sizeBytes });
    }
    return held;
  }

  /**
   * Marks held uploads referenced by `by`, so they never expire. Expiry and reference meet on the
   * hold's stream: if a hold expired since `held` judged it, this fails and nothing points at it.
   */
  async reference(actor: Actor, held: readonly HeldUpload[], by: string): Promise<void> {
    for (const sha256 of new Set(held.map((h) => h.sha256))) {
      await this.send(actor, sha256, { type: 'ReferenceUpload', actor, sha256, by });
    }
  }

  private async usage(org: string): Promise<number> {
    const doc = await this.reads.collection(UPLOAD_USAGE_STORE).findOne({ _id: usageDocId(org) });
    return typeof doc?.bytes === 'number' ? doc.bytes : 0;
  }

  private send(actor: Actor, sha256: string, command: UploadCommand) {
    return this.bus.execute(
      new DecideAndAppend<UploadState, UploadCommand, UploadEvent>(
        { decider: uploadsDecider, streamId: uploadStreamId(actor.org, sha256), command, context: { actor } },
        PROJECTION,
      ),
    );
  }

  private async discard(blobKey: string): Promise<void> {
    await this.blobs.delete(blobKey).catch((error: unknown) => {
      // An orphaned copy costs disk only; the hold never names it.
      this.logger.warn(`could not delete the unused upload copy ${blobKey}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}

function quotaExceeded(quota: number, used: number): DomainError {
  return new DomainError(
    'RESOURCE_EXHAUSTED',
    `the organization's uploads hold ${used} of its ${quota} bytes: this upload does not fit (uploads no investigation references expire; the operator sets SVC_ARTIFACT_QUOTA_BYTES)`,
    'ARTIFACT_QUOTA_EXCEEDED',
  );
}
