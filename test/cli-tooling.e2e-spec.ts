/**
 * Replay and rebuild tooling of the operator CLI against a running stack: newest-first browsing,
 * tailing the log live, retrying a parked event once its cause is gone, rebuild progress as NDJSON,
 * and the `svc` bin run through npx with clean --json output.
 */
// The projections are imported through the stores; their contracts use decorator metadata.
import 'reflect-metadata';
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createEventStore } from '@svc/infrastructure/event-store';
import { createReadStore } from '@svc/infrastructure/read-store';
import { CLI_MAIN, eventually, Stack, stopProcess } from './support/harness';

const NOTES = 'svc.notes.v1.NotesService';

interface Cli {
  code: number;
  stdout: string;
  stderr: string;
}

function run(stack: Stack, command: string, args: string[]): Promise<Cli> {
  const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
  return new Promise((resolve) => {
    execFile(command, args, { env, cwd: process.cwd() }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}
const svc = (stack: Stack, ...args: string[]) => run(stack, process.execPath, [CLI_MAIN, ...args]);
async function svcJson<T>(stack: Stack, ...args: string[]): Promise<T> {
  const res = await svc(stack, ...args, '--json');
  if (res.code !== 0) throw new Error(`svc ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout) as T;
}

interface EventView {
  position: string;
  stream: string;
  type: string;
  data: Record<string, unknown>;
}

describe('operator CLI: replay and rebuild tooling', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
    for (const id of ['a', 'b', 'c']) expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: id, note: { display_name: id } })).status).toBe(200);
  });
  afterAll(() => stack.destroy());

  it('browses newest first and pages backwards with --before', async () => {
    const first = await svcJson<{ events: EventView[]; next: string }>(stack, 'events', '--reverse', '--limit', '2', '--type', 'NoteCreated');
    expect(first.events.map((e) => e.stream)).toEqual(['note-acme:notes/c', 'note-acme:notes/b']);
    const second = await svcJson<{ events: EventView[] }>(stack, 'events', '--reverse', '--limit', '2', '--type', 'NoteCreated', '--before', first.next);
    expect(second.events[0].stream).toBe('note-acme:notes/a');
    expect((await svc(stack, 'events', '--reverse', '--after', '3')).code).toBe(2);
  });

  it('tails the log live (--follow), one JSON line per event, from a position with no gap', async () => {
    const head = (await svcJson<{ events: EventView[] }>(stack, 'events', '--reverse', '--limit', '1')).events[0].position;
    const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
    const child = spawn(process.execPath, [CLI_MAIN, 'events', '--follow', '--after', head, '--type', 'NoteCreated', '--limit', '2', '--json'], { env });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'live1', note: { display_name: 'live1' } })).status).toBe(200);
    expect((await stack.rpc(`${NOTES}/UpdateNote`, { note: { name: 'notes/live1', display_name: 'x' }, update_mask: 'display_name' })).status).toBe(200);
    expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'live2', note: { display_name: 'live2' } })).status).toBe(200);
    expect(await exited).toBe(0);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as EventView);
    expect(lines.map((e) => [e.type, e.stream])).toEqual([
      ['NoteCreated', 'note-acme:notes/live1'],
      ['NoteCreated', 'note-acme:notes/live2'],
    ]);
  });

  it('replays a parked event once its cause is gone: it applies and leaves the parked list', async () => {
    // A projector that parked the event and moved on: stopped, the event appended, parked under
    // `notes` and the checkpoint past it, as a projection bug (since fixed) would have left things.
    const projector = stack.processes.find((p) => p.spawnargs.some((a) => a.includes('projector')))!;
    await stopProcess(projector);
    const events = createEventStore({ SVC_DATA_DIR: stack.dataDir });
    const reads = await createReadStore({ SVC_DATA_DIR: stack.dataDir });
    try {
      const now = new Date().toISOString();
      const metadata = { org: 'acme', actor: 'users/alice', subject: 'users/alice', correlationId: randomUUID(), causationId: randomUUID(), occurredAt: now, schemaVersion: 1 };
      const resource = { name: 'notes/late', displayName: 'Late', createTime: now, updateTime: now };
      const id = randomUUID();
      const { position } = await events.append('note-acme:notes/late', [{ id, type: 'NoteCreated', data: { resource }, metadata }], 'no_stream');
      await reads.park({ projection: 'notes', eventId: id, eventType: 'NoteCreated', streamId: 'note-acme:notes/late', position, error: 'simulated bug', parkedAt: now });
      await reads.commit({ checkpoint: 'notes', position, ops: [] });
    } finally {
      await events.close();
      await reads.close();
    }
    stack.startProjector();
    expect((await stack.rpc(`${NOTES}/GetNote`, { name: 'notes/late' })).status).toBe(404);
    const parked = await svcJson<{ parked: Array<{ eventType: string }> }>(stack, 'projections', 'parked', 'notes');
    expect(parked.parked.map((p) => p.eventType)).toEqual(['NoteCreated']);

    const replay = await svcJson<{ replayed: Array<{ outcome: string; eventType: string }>; remaining: number }>(stack, 'projections', 'replay-parked', 'notes');
    expect(replay).toMatchObject({ replayed: [{ outcome: 'applied', eventType: 'NoteCreated' }], remaining: 0 });
    const note = await stack.rpc<{ note: { displayName: string } }>(`${NOTES}/GetNote`, { name: 'notes/late' });
    expect(note.status).toBe(200);
    expect(note.body.note.displayName).toBe('Late');
    expect((await svcJson<{ parked: unknown[] }>(stack, 'projections', 'parked', 'notes')).parked).toEqual([]);
    expect((await svc(stack, 'projections', 'replay-parked')).code).toBe(2);
  });

  it('shows rebuild progress as NDJSON on stderr with --json, the result alone on stdout', async () => {
    await eventually(async () => ((await svcJson<{ projector: { running: boolean } | null }>(stack, 'projections', 'status')).projector?.running ? true : undefined));
    const res = await svc(stack, 'projections', 'rebuild', 'notes', '--json');
    expect(res.code).toBe(0);
    const result = JSON.parse(res.stdout) as { results: Array<{ projection: string; events: number; by: string }> };
    expect(result.results).toEqual([{ projection: 'notes', events: expect.any(Number), by: 'projector' }]);
    const progress = res.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { type: string; projection: string; events: number; fraction: number; rate: number; etaSeconds: number | null });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((p) => p.type === 'progress' && p.projection === 'notes')).toBe(true);
    expect(progress[progress.length - 1]).toMatchObject({ fraction: 1, events: result.results[0].events, etaSeconds: 0 });
  });

  it('runs as `npx svc` with --json output that parses', async () => {
    const res = await run(stack, 'npx', ['--no-install', 'svc', 'projections', 'status', '--json']);
    expect(res.code).toBe(0);
    expect((JSON.parse(res.stdout) as { backend: string }).backend).toBe('sqlite');
  });
});
