/**
 * MongoDB update operators applied to a document in memory (the SQLite read store's writes): the
 * projections' everyday `$set`/`$unset` directly, everything else through mingo.
 */
import { update as mingoUpdate } from 'mingo';
import { isPlainObject, PLAIN_PATH } from './plain-document';
import type { Doc, Update } from './read-store.port';

type Modifier = Parameters<typeof mingoUpdate>[1];

/** Applies MongoDB update operators; `$setOnInsert` (not in mingo) acts as `$set` when the update inserts. */
export function applyUpdate(doc: Doc, update: Update, inserting: boolean): void {
  const $setOnInsert = update.$setOnInsert;
  let rest = update;
  if ('$setOnInsert' in update) {
    // Copied only when present: the rest-spread on every update showed up in rebuild profiles.
    rest = { ...update };
    delete rest.$setOnInsert;
  }
  const onInsert = inserting && $setOnInsert && Object.keys($setOnInsert).length > 0 ? $setOnInsert : null;
  if (plainSetUnset(doc, rest, onInsert)) return;
  if (Object.keys(rest).length > 0) mingoUpdate(doc, rest as Modifier);
  if (onInsert) mingoUpdate(doc, { $set: onInsert } as Modifier);
}

/**
 * The projections' everyday update ($set/$unset of plain dotted paths through objects), applied
 * directly: mingo's update() rebuilds its operator tables on every call (~100 µs). Returns false,
 * having changed nothing, for anything else (other operators, array or scalar intermediates,
 * overlapping paths), which then goes to mingo.
 */
function plainSetUnset(doc: Doc, update: Update, onInsert: Record<string, unknown> | null): boolean {
  let dotted = false;
  let sources = 0;
  for (const op of Object.keys(update)) {
    if (op !== '$set' && op !== '$unset') return false;
    const fields = update[op];
    for (const path of Object.keys(fields)) {
      if (!PLAIN_PATH.test(path)) return false;
      dotted ||= path.includes('.');
    }
    sources++;
  }
  if (onInsert) {
    for (const path of Object.keys(onInsert)) {
      if (!PLAIN_PATH.test(path)) return false;
      dotted ||= path.includes('.');
    }
    sources++;
  }
  if (!dotted) return plainTopLevel(doc, update, onInsert, sources);
  const sets: [string[], unknown][] = [];
  const unsets: string[][] = [];
  for (const [op, fields] of Object.entries(update)) {
    for (const [path, value] of Object.entries(fields)) {
      if (op === '$set') sets.push([path.split('.'), value]);
      else unsets.push(path.split('.'));
    }
  }
  for (const [path, value] of Object.entries(onInsert ?? {})) sets.push([path.split('.'), value]);
  const all = [...sets.map(([segs]) => segs), ...unsets].map((segs) => segs.join('.'));
  const sorted = [...all].sort();
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] === sorted[i - 1] || sorted[i].startsWith(`${sorted[i - 1]}.`)) return false; // MongoDB: conflict
  }
  // Every existing intermediate must be a plain object (MongoDB errors or indexes arrays otherwise).
  const walkable = (segs: string[]): boolean => {
    let v: unknown = doc;
    for (let i = 0; i < segs.length - 1; i++) {
      v = (v as Doc)[segs[i]];
      if (v === undefined) return true;
      if (!isPlainObject(v)) return false;
    }
    return true;
  };
  if (!sets.every(([segs]) => walkable(segs)) || !unsets.every(walkable)) return false;
  for (const [segs, value] of sets) {
    let v = doc;
    for (let i = 0; i < segs.length - 1; i++) v = (v[segs[i]] ??= {}) as Doc;
    v[segs[segs.length - 1]] = value;
  }
  for (const segs of unsets) {
    let v: Doc | undefined = doc;
    for (let i = 0; i < segs.length - 1 && v; i++) v = v[segs[i]] as Doc | undefined;
    if (v) delete v[segs[segs.length - 1]];
  }
  return true;
}

/**
 * plainSetUnset for top-level fields only (what a Created event's `$set` is, so every document of a
 * rebuild comes through here): no path to walk, and a conflict can only be the same field named by
 * two of the operators.
 */
function plainTopLevel(doc: Doc, update: Update, onInsert: Record<string, unknown> | null, sources: number): boolean {
  if (sources > 1) {
    const seen = new Set<string>();
    for (const fields of [...Object.values(update), onInsert ?? {}]) {
      for (const path of Object.keys(fields)) {
        if (seen.has(path)) return false; // MongoDB: conflict
        seen.add(path);
      }
    }
  }
  const sets = update.$set;
  if (sets) for (const path of Object.keys(sets)) doc[path] = sets[path];
  if (onInsert) for (const path of Object.keys(onInsert)) doc[path] = onInsert[path];
  const unsets = update.$unset;
  if (unsets) for (const path of Object.keys(unsets)) delete doc[path];
  return true;
}
