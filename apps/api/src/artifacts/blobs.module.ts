import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { BLOB_STORE, type BlobStore, createBlobStore } from '@svc/infrastructure/blobs';
import type { Settings } from '@svc/infrastructure/config/env';
import { SETTINGS } from '@svc/infrastructure/nest/tokens';

@Injectable()
class BlobStoreCloser implements OnApplicationShutdown {
  constructor(@Inject(BLOB_STORE) private readonly blobs: BlobStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.blobs.close();
  }
}

/** The blob store (files under the data directory, or GridFS with MONGODB_URL), for uploads and investigations. */
@Global()
@Module({
  providers: [
    { provide: BLOB_STORE, inject: [SETTINGS], useFactory: (settings: Settings) => createBlobStore({ MONGODB_URL: settings.mongoUrl, SVC_DATA_DIR: settings.dataDir }) },
    BlobStoreCloser,
  ],
  exports: [BLOB_STORE],
})
export class BlobsModule {}
