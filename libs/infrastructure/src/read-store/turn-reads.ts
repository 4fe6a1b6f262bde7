import type { Doc, DocKey, ReadStore } from './read-store.port';

/**
 * Reads by `_id` asked for during one turn of the event loop, made once for all who asked.
 *
 * Every request reads its credential's key and access stamp (credentials.service.ts). Under load the
 * requests of one client arrive several per turn, and each read costs the same whatever it finds:
 * after another process's commit SQLite reloads the pages it needs. So the first ask of a turn
 * schedules the read after the turn's I/O (setImmediate), later asks of the same documents join it,
 * and the read, taken after each of them asked, is as fresh for all of them as their own would have
 * been: a change committed before any of these requests arrived is seen by all. An ask made once
 * the read has started starts a new one. Callers share the documents and must not change them.
 */
export class TurnReads {
  private readonly pending = new Map<string, Promise<Array<Doc | null>>>();

  constructor(private readonly reads: Pick<ReadStore, 'findByIds'>) {}

  findByIds(keys: readonly DocKey[]): Promise<Array<Doc | null>> {
    // Length-prefixed: ids come from client input (a username), so no separator character is safe.
    const id = keys.map((k) => `${k.collection.length}:${k.collection}${k.id.length}:${k.id}`).join('');
    let read = this.pending.get(id);
    if (!read) {
      read = new Promise((resolve, reject) => {
        setImmediate(() => {
          this.pending.delete(id);
          this.reads.findByIds(keys).then(resolve, reject);
        });
      });
      this.pending.set(id, read);
    }
    return read;
  }

  /** Reads scheduled and not started (tests: nothing is held once they ran). */
  get size(): number {
    return this.pending.size;
  }
}
