/**
 * Documents as rows of the SQLite read store: the JSON, `_org`, `_pos`, and one materialized column
 * per declared path, written together. Every write records what the document reveals about its
 * paths' flags (schema-cache.ts), so the filter pushdown stays exact.
 */
import type Database from 'better-sqlite3';
import type { Doc } from '../read-store.port';
import { inspectPath, UNSAFE, type CollectionState, type PathState, type SchemaCache } from './schema-cache';
import type { Statement } from './statements';

export class DocumentRows {
  constructor(
    private readonly db: Database.Database,
    private readonly schema: SchemaCache,
  ) {}

  /** The stored row of an `_id` as [doc, _pos, _org, ...columns] (raw), so a replace can tell which columns changed. */
  current(coll: CollectionState): Statement {
    const columns = columnsOf(coll).map(([, p]) => `, ${p.column}`).join('');
    return (coll.stmts.current ??= this.db.prepare(`SELECT doc, _pos, _org${columns} FROM ${coll.table} WHERE _id = ?`).raw());
  }

  remove(coll: CollectionState, id: string): void {
    (coll.stmts.remove ??= this.db.prepare(`DELETE FROM ${coll.table} WHERE _id = ?`)).run(id);
  }

  /**
   * Writes a document with its materialized columns: `insert` (absent before) or `insertIfAbsent`
   * (keeps an existing document), or replaces an existing one whose stored row (`current`: doc,
   * _pos, _org, then the columns) is given. Returns whether it was written.
   */
  writeDoc(physical: string, coll: CollectionState, id: string, doc: Doc, mode: 'insert' | 'insertIfAbsent', current?: undefined): boolean;
  writeDoc(physical: string, coll: CollectionState, id: string, doc: Doc, mode: 'replace', current: unknown[]): boolean;
  writeDoc(physical: string, coll: CollectionState, id: string, doc: Doc, mode: 'insert' | 'insertIfAbsent' | 'replace', current?: unknown[]): boolean {
    const stmts = coll.stmts;
    const columns = columnsOf(coll);
    const org = orgColumn(doc);
    let found = 0; // flags seen on this document across all paths: most documents reveal nothing new
    const flags: number[] = [];
    const colValues: (string | number | null)[] = [];
    for (const [, p] of columns) {
      const inspected = inspectPath(doc, p.segs);
      colValues.push(inspected.value);
      flags.push(inspected.flags);
      found |= inspected.flags & ~p.flags;
    }
    let stmt: Statement;
    let values: unknown[];
    if (mode === 'replace' && current) {
      // Only the columns whose value changed are set: SQLite maintains exactly the indexes over the
      // columns an UPDATE names, and every index starts with `_org`, so setting all of them
      // rewrote nine index entries per update even when only the JSON changed.
      const wide = columns.length > 30; // a bitmask key per changed-column set, while it fits
      let mask = 0;
      values = [posColumn(doc), JSON.stringify(doc)];
      if (wide || org !== current[2]) {
        mask |= 1;
        values.push(org);
      }
      for (let i = 0; i < columns.length; i++) {
        if (!wide && colValues[i] === current[3 + i]) continue;
        mask |= 2 ** (i + 1);
        values.push(colValues[i]);
      }
      values.push(id);
      const key = wide ? -1 : mask;
      const byMask = (stmts.replace ??= new Map());
      let prepared = byMask.get(key);
      if (!prepared) {
        const set = ['_pos = ?', 'doc = ?'];
        if (wide || mask & 1) set.push('_org = ?');
        columns.forEach(([, p], i) => {
          if (wide || mask & (2 ** (i + 1))) set.push(`${p.column} = ?`);
        });
        prepared = this.db.prepare(`UPDATE ${coll.table} SET ${set.join(', ')} WHERE _id = ?`);
        byMask.set(key, prepared);
      }
      stmt = prepared;
    } else {
      values = [id, org, posColumn(doc), JSON.stringify(doc), ...colValues];
      const sql = `INSERT INTO ${coll.table} (${['_id', '_org', '_pos', 'doc', ...columns.map(([, p]) => p.column)].join(', ')}) VALUES (?${', ?'.repeat(3 + columns.length)})`;
      stmt = mode === 'insert' ? (stmts.insert ??= this.db.prepare(sql)) : (stmts.insertIfAbsent ??= this.db.prepare(`${sql} ON CONFLICT (_id) DO NOTHING`));
    }
    if (stmt.run(values).changes === 0) return false;
    // Record what the document reveals about its paths (see UNSAFE, BOOL, NULLV).
    if (doc._org !== undefined && typeof doc._org !== 'string' && !(coll.orgFlags & UNSAFE)) {
      this.schema.markOrgUnsafe(physical, coll);
    }
    if (found === 0) return true;
    columns.forEach(([path, p], i) => {
      if ((flags[i] & ~p.flags) === 0) return;
      this.schema.widenFlags(physical, path, p, flags[i]);
    });
    return true;
  }
}

/** The declared paths in the order the write statements (and `current`) list their columns. */
function columnsOf(coll: CollectionState): [string, PathState][] {
  return (coll.stmts.columns ??= [...coll.paths]);
}

function orgColumn(doc: Doc): string | null {
  return typeof doc._org === 'string' ? doc._org : null;
}

function posColumn(doc: Doc): number | null {
  return typeof doc._pos === 'number' ? doc._pos : null;
}
