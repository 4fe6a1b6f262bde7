import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { type BlobStore, createBlobStore } from '@svc/infrastructure/blobs';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import type { Settings } from '@svc/infrastructure/config/env';
import { READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { UploadSweep } from './upload-sweep';

/** Hosts the upload sweep in the projector process, with a blob store of its own to delete from. */
@Injectable()
export class UploadSweepService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('uploads');
  private sweep: UploadSweep | null = null;
  private blobs: BlobStore | null = null;

  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly commands: CommandService,
    private readonly bus: CommandBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.blobs = await createBlobStore({ MONGODB_URL: this.settings.mongoUrl, SVC_DATA_DIR: this.settings.dataDir });
    this.sweep = new UploadSweep(this.reads, this.bus, this.commands, this.blobs, { everyMs: this.settings.artifactSweepMs, now: () => new Date(), log: (line) => this.logger.log(line) });
    this.sweep.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweep?.stop();
    await this.blobs?.close();
  }
}
