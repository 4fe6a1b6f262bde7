import { type ChildProcess, execFile } from 'node:child_process';
import { createReadStore } from '@svc/infrastructure/read-store';
import type { Doc } from '@svc/infrastructure/read-store/read-store.port';
import { CLI_MAIN, eventually, PROJECTOR_MAIN, sleep, Stack, stopProcess } from './support/harness';

const S = 'svc.notes.v1.NotesService';

interface Note {
  name: string;
  displayName?: string;
  deleteTime?: string;
}
interface Status {
  head: string;
  projector: { running: boolean } | null;
  projections: Array<{ name: string; checkpoint: string | null; lag: number | null; parked: number }>;
}

/** `npm run svc -- ... --json` as a separate process on the stack's data directory. */
function svc<T>(stack: Stack, ...args: string[]): Promise<T> {
  const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI_MAIN, ...args, '--json'], { env }, (error, stdout, stderr) => {
      if (error) reject(new Error(`svc ${args.join(' ')} failed: ${stderr}`));
      else resolve(JSON.parse(stdout) as T);
    });
  });
}

const caughtUp = (stack: Stack) =>
  eventually(async () => {
    const status = await svc<Status>(stack, 'projections', 'status');
    return status.projector?.running && status.projections.every((p) => p.lag === 0) ? status : undefined;
  }, 20_000);

/** Runs `tasks` with at most `width` in flight. */
async function pool(width: number, tasks: Array<() => Promise<void>>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) await tasks[next++]();
    }),
  );
}

describe('projector: crashes, rebuilds, checkpoints (separate processes)', () => {
  let stack: Stack;
  beforeAll(async () => {
    // Commands wait for their projection at most 200 ms, so they do not stall while the projector is down.
    stack = await Stack.start({ env: { SVC_READ_WAIT_MS: '200' } });
  });
  afterAll(async () => {
    await stack.destroy();
  });

  const liveProjector = (): ChildProcess => {
    const child = stack.processes.find((p) => p.spawnargs.includes(PROJECTOR_MAIN) && p.exitCode === null && p.signalCode === null);
    if (!child) throw new Error('no projector is running');
    return child;
  };

  /** Every note document whose name starts with `prefix`, straight from the read store (internal fields included). */
  async function dumpNotes(prefix: string): Promise<Doc[]> {
    const reads = await createReadStore({ SVC_DATA_DIR: stack.dataDir });
    try {
      const docs = await reads.collection('notes').find({ _org: 'acme' }, { sort: { _id: 1 } });
      return docs.filter((d) => String(d.name).startsWith(`notes/${prefix}`));
    } finally {
      await reads.close();
    }
  }

  it('kill -9 of the projector at any moment loses nothing and applies nothing twice', async () => {
    const N = 300;
    const expected = new Map<string, { displayName: string; deleted: boolean }>();
    const tasks = Array.from({ length: N }, (_, i) => async () => {
      const name = `notes/k-${i}`;
      const call = async (method: string, body: unknown) => {
        const res = await stack.rpc(`${S}/${method}`, body);
        if (res.status !== 200) throw new Error(`${method} ${name}: ${res.status} ${JSON.stringify(res.body)}`);
        done += 1;
      };
      await call('CreateNote', { note_id: `k-${i}`, note: { display_name: `kill ${i}` } });
      expected.set(name, { displayName: `kill ${i}`, deleted: false });
      if (i % 3 === 0) {
        await call('UpdateNote', { note: { name, display_name: `kill ${i} v2` }, update_mask: 'display_name' });
        expected.set(name, { displayName: `kill ${i} v2`, deleted: false });
      }
      if (i % 7 === 0) {
        await call('DeleteNote', { name });
        expected.set(name, { ...expected.get(name)!, deleted: true });
      }
    });
    const total = N + Math.ceil(N / 3) + Math.ceil(N / 7);
    let done = 0;

    // Kills at random points of the workload, each followed by a restart after a random pause.
    const killAt = Array.from({ length: 3 }, () => Math.floor(total * (0.1 + Math.random() * 0.8))).sort((a, b) => a - b);
    let kills = 0;
    let writing = true;
    const killer = (async () => {
      for (const at of killAt) {
        while (writing && done < at) await sleep(2);
        await stopProcess(liveProjector(), 'SIGKILL');
        kills += 1;
        await sleep(Math.random() * 150);
        stack.startProjector();
      }
    })();
    try {
      await pool(32, tasks);
    } finally {
      writing = false;
      await killer;
    }
    expect(kills).toBe(killAt.length);

    await caughtUp(stack);
    const before = await dumpNotes('k-');
    expect(before).toHaveLength(N);
    for (const doc of before) {
      const want = expected.get(String(doc.name))!;
      expect({ name: doc.name, displayName: doc.displayName, deleted: doc.deleteTime !== undefined }).toEqual({
        name: doc.name,
        displayName: want.displayName,
        deleted: want.deleted,
      });
    }
    expect((await svc<{ parked: unknown[] }>(stack, 'projections', 'parked')).parked).toEqual([]);

    // A fresh fold of every event must give exactly the documents the crashing projector left behind.
    const rebuilt = await svc<{ results: Array<{ projection: string; events: number; by: string }> }>(stack, 'projections', 'rebuild', 'notes');
    expect(rebuilt.results).toEqual([{ projection: 'notes', events: expect.any(Number), by: 'projector' }]);
    expect(rebuilt.results[0].events).toBeGreaterThanOrEqual(total);
    await caughtUp(stack);
    expect(await dumpNotes('k-')).toEqual(before);
  });

  it('Get and List keep answering during a rebuild and see the same data afterwards', async () => {
    for (let i = 0; i < 40; i++) {
      expect((await stack.rpc(`${S}/CreateNote`, { note_id: `r-${i}`, note: { display_name: `Rebuild ${i}` } })).status).toBe(200);
    }
    const list = async () => {
      const res = await stack.rpc<{ notes: Note[] }>(`${S}/ListNotes`, { filter: "display_name : 'Rebuild*'", order_by: 'name', page_size: 1000 });
      expect(res.status).toBe(200);
      return res.body.notes;
    };
    const baseline = await list();
    expect(baseline).toHaveLength(40);

    let finished = false;
    const rebuild = svc<{ results: Array<{ by: string }> }>(stack, 'projections', 'rebuild', 'notes').finally(() => (finished = true));
    let reads = 0;
    let during: Promise<{ status: number }> | null = null;
    while (!finished) {
      // A write in the middle of it (before, during or after the pause, as timing has it) must survive the swap.
      if (reads === 3) during = stack.rpc(`${S}/CreateNote`, { note_id: 'r-during', note: { display_name: 'Written during' } });
      const i = reads % 40;
      const got = await stack.rpc<{ note: Note }>(`${S}/GetNote`, { name: `notes/r-${i}` });
      expect(got.status).toBe(200);
      expect(got.body.note.displayName).toBe(`Rebuild ${i}`);
      expect(await list()).toEqual(baseline);
      reads += 1;
    }
    expect((await rebuild).results[0].by).toBe('projector');
    expect(reads).toBeGreaterThan(3);
    expect((await during)?.status).toBe(200);

    expect(await list()).toEqual(baseline);
    await eventually(async () => ((await stack.rpc(`${S}/GetNote`, { name: 'notes/r-during' })).status === 200 ? true : undefined));
  });

  it('a quiet projection’s checkpoint still advances to the head', async () => {
    for (let i = 0; i < 5; i++) await stack.rpc(`${S}/CreateNote`, { note_id: `q-${i}`, note: {} });
    const trail = await svc<{ events: Array<{ position: string }> }>(stack, 'audit', 'acme', 'notes/q-4');
    const created = Number(trail.events[0].position);
    const status = await caughtUp(stack);
    // No event since the configuration concerns connections, yet its checkpoint is the head.
    const connections = status.projections.find((p) => p.name === 'connections')!;
    expect(Number(connections.checkpoint)).toBeGreaterThanOrEqual(created);
    expect(connections.checkpoint).toBe(status.head);
  });
});
