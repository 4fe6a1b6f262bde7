/**
 * Snapshots in play across crashes (issue 17): kill -9 of the api in the middle of a burst of
 * updates to one long note, after its stream was snapshotted, loses no acknowledged update and
 * applies none twice; a restarted api (cold: the snapshot, then the tail) carries on from the right
 * state; a snapshot written by another fold is ignored.
 */
import type Database from 'better-sqlite3';
import { openSqlite } from '@svc/infrastructure/sqlite/driver';
import * as path from 'node:path';
import { API_MAIN, Stack, stopProcess } from './support/harness';

const NOTES = 'svc.notes.v1.NotesService';
const NAME = 'notes/long';
const STREAM = `note-acme:${NAME}`;

describe('snapshots across kill -9', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ env: { SVC_READ_WAIT_MS: '200' } });
  });
  afterAll(() => stack.destroy());

  const events = () => path.join(stack.dataDir, 'events.db');
  function readLog<T>(read: (db: Database.Database) => T): T {
    const db = openSqlite(events(), { readonly: true, fileMustExist: true });
    try {
      return read(db);
    } finally {
      db.close();
    }
  }
  const displayNames = () =>
    readLog((db) =>
      (db.prepare('SELECT revision, data FROM events WHERE stream_id = ? ORDER BY revision').all(STREAM) as Array<{ revision: bigint | number; data: string }>).map(
        (row) => JSON.parse(row.data) as { resource?: { displayName?: string }; set?: { displayName?: string } },
      ),
    );
  const update = async (value: string) => {
    const res = await stack.rpc(`${NOTES}/UpdateNote`, { note: { name: NAME, display_name: value }, update_mask: 'display_name' });
    if (res.status !== 200) throw new Error(`UpdateNote ${value}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  const api = () => {
    const child = stack.processes.find((p) => p.spawnargs.includes(API_MAIN) && p.exitCode === null && p.signalCode === null);
    if (!child) throw new Error('no api is running');
    return child;
  };

  it('loses no acknowledged update and applies none twice; the restarted api folds the snapshot and the tail', async () => {
    expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'long', note: { display_name: 'v0' } })).status).toBe(200);
    for (let i = 1; i <= 230; i++) await update(`seq-${i}`);
    const snapshot = readLog((db) => db.prepare('SELECT revision, fold FROM snapshots WHERE stream_id = ?').get(STREAM) as { revision: number | bigint; fold: string } | undefined);
    expect(snapshot?.fold).toBe('resource:Note:1');
    expect(Number(snapshot?.revision)).toBeGreaterThanOrEqual(199);

    // Eight clients update the note concurrently; the api dies under them.
    const acknowledged: string[] = [];
    let stop = false;
    const clients = Array.from({ length: 8 }, async (_, c) => {
      for (let n = 0; !stop; n++) {
        const value = `burst-${c}-${n}`;
        try {
          await update(value);
          acknowledged.push(value);
        } catch {
          return; // the api is gone: what it did not acknowledge may or may not be stored
        }
      }
    });
    while (acknowledged.length < 150) await new Promise((r) => setTimeout(r, 5));
    await stopProcess(api(), 'SIGKILL');
    stop = true;
    await Promise.all(clients);

    // Restarted, cold: it must fold the snapshot and the tail to the state the log holds.
    stack.spawn('api', API_MAIN, { SVC_PROJECTOR: 'off' });
    await stack.waitHealthy();
    for (let i = 1; i <= 5; i++) await update(`after-${i}`);
    const got = await stack.rpc<{ note: { displayName: string } }>(`${NOTES}/GetNote`, { name: NAME });
    expect(got.body.note.displayName).toBe('after-5');

    const stored = displayNames().map((data) => data.resource?.displayName ?? data.set?.displayName);
    // Every acknowledged update is in the stream exactly once, and so is everything after the restart.
    for (const value of [...acknowledged, 'after-1', 'after-5']) expect(stored.filter((v) => v === value)).toHaveLength(1);
    expect(new Set(stored).size).toBe(stored.length);
  });

  it('a snapshot of another fold (an older evolve, say) is ignored: the restarted api folds the whole stream', async () => {
    await stopProcess(api(), 'SIGKILL');
    // A snapshot from a fold the code no longer has, holding a state that is wrong (a description the note never had).
    const db = openSqlite(events(), { fileMustExist: true });
    try {
      db.prepare('UPDATE snapshots SET fold = ?, state = ? WHERE stream_id = ?').run('resource:Note:0', JSON.stringify({ state: { resource: { name: NAME, displayName: 'stale', description: 'planted' }, deleted: false }, position: null, requests: [] }), STREAM);
    } finally {
      db.close();
    }
    stack.spawn('api', API_MAIN, { SVC_PROJECTOR: 'off' });
    await stack.waitHealthy();
    // The note's name is already 'after-5': an update to it changes nothing and appends nothing.
    const before = displayNames().length;
    await update('after-5');
    expect(displayNames().length).toBe(before);
    // The update answers the fold's resource: folded from the stale snapshot it would carry 'planted'.
    const answer = await stack.rpc<{ note: { displayName: string; description?: string } }>(`${NOTES}/UpdateNote`, { note: { name: NAME, display_name: 'after-restart' }, update_mask: 'display_name' });
    expect(answer.status).toBe(200);
    expect(answer.body.note).toMatchObject({ name: NAME, displayName: 'after-restart' });
    expect(answer.body.note.description ?? '').not.toBe('planted');
    expect(displayNames().length).toBe(before + 1);
  });
});
