import { createReadStore } from '@svc/infrastructure/read-store';
import type { Doc } from '@svc/infrastructure/read-store/read-store.port';

/** Every document of `collections` in a data directory's read store, by `_id`: what a rebuild must reproduce. */
export async function dumpReadModels(dataDir: string, collections: readonly string[]): Promise<Record<string, Doc[]>> {
  const reads = await createReadStore({ SVC_DATA_DIR: dataDir });
  try {
    const out: Record<string, Doc[]> = {};
    for (const c of collections) out[c] = await reads.collection(c).find({}, { sort: { _id: 1 } });
    return out;
  } finally {
    await reads.close();
  }
}
