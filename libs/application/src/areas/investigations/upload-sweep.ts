/**
 * Expires uploads no investigation referenced in time and reclaims their bytes (docs/decisions.md,
 * "Uploads"). Not log-driven: a tick (SVC_ARTIFACT_SWEEP_MS) reads due holds from their read model
 * and sends each hold's stream an ExpireUpload, which the decider refuses quietly when the hold was
 * referenced or renewed meanwhile; then, for holds with bytes left to reclaim, deletes the keys the
 * hold's own stream lists and records each deletion. A crash between the two steps leaves the key
 * listed, so the next tick deletes it again (deleting nothing is no error). A failing tick is
 * retried with backoff; the hold's stream, not a timer in memory, is the durable state.
 */
import { UPLOADS_STORE, type UploadEvent, uploadStreamId } from '@svc/contracts/investigations/upload.events';
import { type UploadCommand, uploadsDecider, type UploadState } from '@svc/domain/investigations/uploads.decider';
import type { Actor } from '@svc/domain/shared/decider';
import { type BlobStore, createBlobStore } from '@svc/infrastructure/blobs';
import type { CommandSender } from '../../commands/command-sender';
import { DecideAndAppend } from '../../commands/decide-and-append';
import type { Reactor } from '../../reactors/reactor';
import type { CommandService } from '@svc/infrastructure/commands/command-service';
import type { Doc, ReadStore } from '@svc/infrastructure/read-store/read-store.port';

/** Holds handled per tick and step: a backlog drains over several ticks, never in one long one. */
const BATCH = 200;
/** An upload not finished after this long was interrupted (its process died): its partial bytes are swept. */
export const INTERRUPTED_UPLOAD_AGE_MS = 60 * 60 * 1000;

/** The actor of the sweep's commands. */
const SWEEPER = 'service-accounts/svc-upload-sweep';

export interface UploadSweepOptions {
  now: () => Date;
  log: (line: string) => void;
}

/** The sweep as a timer reactor, with a blob store of its own to delete from (closed when it stops). */
export const uploadSweepReactor: Reactor = {
  name: 'uploads',
  drivenBy: 'timer',
  async create({ reads, bus, folds, settings, log, every }) {
    const blobs = await createBlobStore({ MONGODB_URL: settings.mongoUrl, SVC_DATA_DIR: settings.dataDir });
    const sweep = new UploadSweep(reads, bus, folds, blobs, { now: () => new Date(), log });
    const tick = async () => {
      const { expired, reclaimed } = await sweep.sweep();
      if (expired + reclaimed > 0) log(`uploads: ${expired} expired, ${reclaimed} reclaimed`);
    };
    return { runner: every(settings.artifactSweepMs, tick), close: () => blobs.close() };
  },
};

export class UploadSweep {
  constructor(
    private readonly reads: ReadStore,
    private readonly bus: CommandSender,
    /** Reads folded state (stateOf); writes go through the bus. */
    private readonly commands: Pick<CommandService, 'stateOf'>,
    private readonly blobs: BlobStore,
    private readonly options: UploadSweepOptions,
  ) {}

  /** One pass: due holds expired, expired holds' bytes deleted. Exposed for tests. */
  async sweep(): Promise<{ expired: number; reclaimed: number }> {
    const now = this.options.now().toISOString();
    const uploads = this.reads.collection(UPLOADS_STORE);
    let expired = 0;
    for (const doc of await uploads.find({ status: 'LIVE', expireTime: { $lte: now } }, { sort: { expireTime: 1 }, limit: BATCH })) {
      const handled = await this.send(doc, { type: 'ExpireUpload', actor: actorOf(doc, now) });
      expired += handled.events.length;
    }
    let reclaimed = 0;
    for (const doc of await uploads.find({ _reclaimCount: { $gt: 0 } }, { limit: BATCH })) {
      const state = await this.commands.stateOf(uploadsDecider, streamOf(doc));
      for (const blobKey of state.reclaim) {
        await this.blobs.delete(blobKey);
        reclaimed += (await this.send(doc, { type: 'ReclaimBlob', actor: actorOf(doc, now), blobKey })).events.length;
      }
    }
    // What uploads interrupted by a crash left in the blob store (never a put still running: an hour is far past any).
    const interrupted = await this.blobs.sweepInterrupted(new Date(this.options.now().getTime() - INTERRUPTED_UPLOAD_AGE_MS));
    if (interrupted > 0) this.options.log(`uploads: removed what ${interrupted} interrupted blob uploads left behind`);
    return { expired, reclaimed };
  }

  private send(doc: Doc, command: UploadCommand) {
    return this.bus.execute(new DecideAndAppend<UploadState, UploadCommand, UploadEvent>({ decider: uploadsDecider, streamId: streamOf(doc), command, context: { actor: command.actor } }));
  }
}

const streamOf = (doc: Doc): string => uploadStreamId(String(doc._org), String(doc.sha256));
const actorOf = (doc: Doc, now: string): Actor => ({ org: String(doc._org), actor: SWEEPER, subject: SWEEPER, permissions: [], now });
