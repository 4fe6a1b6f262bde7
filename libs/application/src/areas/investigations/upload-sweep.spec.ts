import type { BlobStore } from '@svc/infrastructure/blobs';
import type { CommandService } from '@svc/infrastructure/commands/command-service';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { INTERRUPTED_UPLOAD_AGE_MS, UploadSweep } from './upload-sweep';

describe('UploadSweep', () => {
  it('also removes what interrupted blob uploads left, older than an hour, and says so', async () => {
    const reads = { collection: () => ({ find: async () => [] }) } as unknown as ReadStore;
    const sweepInterrupted = jest.fn(async () => 2);
    const lines: string[] = [];
    const now = new Date('2026-11-25T12:00:00Z');
    const sweep = new UploadSweep(reads, { execute: jest.fn() }, {} as CommandService, { sweepInterrupted } as unknown as BlobStore, { now: () => now, log: (l) => lines.push(l) });
    await expect(sweep.sweep()).resolves.toEqual({ expired: 0, reclaimed: 0 });
    expect(sweepInterrupted).toHaveBeenCalledWith(new Date(now.getTime() - INTERRUPTED_UPLOAD_AGE_MS));
    expect(lines).toEqual(['uploads: removed what 2 interrupted blob uploads left behind']);
  });
});
