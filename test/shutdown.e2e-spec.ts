import type { ChildProcess } from 'node:child_process';
import { STOP_DEADLINE_MS } from '@svc/infrastructure/nest/graceful-stop';
import { ALICE, API_MAIN, eventually, type Exit, signalAndWait, sleep, Stack } from './support/harness';
import { SseClient } from './support/sse';

const NOTES = 'svc.notes.v1.NotesService';
const WRITERS = 32;
const READERS = 8;
const AUTH = `Basic ${Buffer.from(`${ALICE.username}:${ALICE.password}`).toString('base64')}`;

/** One request's outcome: its HTTP status, or `transport` when no answer came (refused, reset). */
interface Outcome {
  noteId?: string;
  status: number | 'transport';
  /** Answered after the stop signal was sent. */
  afterSignal: boolean;
}

async function post(stack: Stack, method: string, body: unknown): Promise<number | 'transport'> {
  try {
    const res = await fetch(`${stack.baseUrl}/${NOTES}/${method}`, {
      method: 'POST',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 'transport';
  }
}

/**
 * Closed-loop load: WRITERS clients create notes, READERS clients list them, each until the api
 * stops answering (a refused connection or the 503 of a server that is closing).
 */
function load(stack: Stack, signalled: () => boolean): { outcomes: Outcome[]; done: Promise<void>; answered: () => number } {
  const outcomes: Outcome[] = [];
  const client = async (run: (i: number) => Promise<Outcome>): Promise<void> => {
    for (let i = 0; ; i++) {
      const outcome = await run(i);
      outcomes.push(outcome);
      if (outcome.status !== 200) return;
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, c) =>
    client(async (i) => {
      const noteId = `w${c}-${i}`;
      const status = await post(stack, 'CreateNote', { note_id: noteId, note: { display_name: `Note ${c}-${i}` } });
      return { noteId, status, afterSignal: signalled() };
    }),
  );
  const readers = Array.from({ length: READERS }, () =>
    client(async () => ({ status: await post(stack, 'ListNotes', { page_size: 50 }), afterSignal: signalled() })),
  );
  return { outcomes, done: Promise.all([...writers, ...readers]).then(() => undefined), answered: () => outcomes.length };
}

/** Every note of acme, read through the api. */
async function allNotes(stack: Stack): Promise<Set<string>> {
  const names = new Set<string>();
  let pageToken = '';
  do {
    const res = await stack.rpc<{ notes?: Array<{ name: string }>; nextPageToken?: string }>(`${NOTES}/ListNotes`, {
      page_size: 1000,
      page_token: pageToken,
    });
    expect(res.status).toBe(200);
    for (const note of res.body.notes ?? []) names.add(note.name);
    pageToken = res.body.nextPageToken ?? '';
  } while (pageToken);
  return names;
}

const isApi = (p: ChildProcess) => p.spawnargs.includes(API_MAIN);

describe.each([
  {
    layout: 'npm-start' as const,
    how: 'Ctrl-C (SIGINT to the process group) with the projector as a child',
    stop: (stack: Stack) => [signalAndWait(stack.processes.find(isApi)!, 'SIGINT', { group: true })],
  },
  {
    layout: 'separate' as const,
    how: 'SIGTERM to both processes of start:api + start:projector',
    stop: (stack: Stack) => stack.processes.map((p) => signalAndWait(p, 'SIGTERM')),
  },
  {
    layout: 'inprocess' as const,
    how: 'SIGTERM with the projector in-process',
    stop: (stack: Stack) => [signalAndWait(stack.processes.find(isApi)!, 'SIGTERM')],
  },
])('shutdown under load: $how', ({ layout, stop }) => {
  let stack: Stack;
  let restarted: Stack | null = null;
  afterAll(async () => {
    await stack?.stop();
    if (restarted) await restarted.destroy();
  });

  it('answers every accepted request, exits 0 within the deadline, and every acknowledged write is readable after a restart', async () => {
    stack = await Stack.start({ layout, detached: true });
    let signalled = false;
    const traffic = load(stack, () => signalled);
    // Stop while the load is running: every client has a request in flight.
    while (traffic.answered() < 100) await sleep(10);
    signalled = true;
    const exits: Exit[] = await Promise.all(stop(stack));
    await traffic.done;

    for (const exit of exits) {
      expect(exit).toEqual({ code: 0, signal: null, ms: expect.any(Number) });
      expect(exit.ms).toBeLessThan(STOP_DEADLINE_MS);
    }
    const output = stack.output.join('');
    expect(output).not.toMatch(/projector exited|stop failed|did not finish/);
    // The api and a projector process each stop on a signal (the child's being the api's SIGTERM), not on a crash or a lost parent.
    const stops = output.match(/stopped \((SIGTERM|SIGINT)\)/g) ?? [];
    expect(stops.length).toBe(layout === 'inprocess' ? 1 : 2);

    // A request is answered 200, or refused as the server closes (connection refused, or 503 on a kept-alive connection).
    const { outcomes } = traffic;
    const statuses = new Set(outcomes.map((o) => o.status));
    for (const status of statuses) expect([200, 503, 'transport']).toContain(status);
    // Requests in flight at the signal were drained: answered in full after it.
    expect(outcomes.filter((o) => o.afterSignal && o.status === 200).length).toBeGreaterThan(0);

    // After a restart the notes are exactly the acknowledged ones: none lost, none written without its answer.
    restarted = await Stack.start({ layout, dataDir: stack.dataDir });
    const acknowledged = outcomes.filter((o) => o.noteId && o.status === 200).map((o) => `notes/${o.noteId}`);
    // The restarted projector may still be catching up on writes answered after their wait was cut short.
    const stored = await eventually(async () => {
      const names = await allNotes(restarted!);
      return names.size >= acknowledged.length ? names : undefined;
    }).catch(() => allNotes(restarted!));
    expect([...stored].sort()).toEqual(acknowledged.sort());
  });
});

describe('a projector child that dies (npm start)', () => {
  it('is restarted by the api, which keeps answering; health says it is down at once; a write after the restart is read back', async () => {
    // A loaded machine may take seconds to start a Node process: the write below waits as long as it takes.
    const stack = await Stack.start({ layout: 'npm-start', env: { SVC_READ_WAIT_MS: '30000' } });
    try {
      const api = stack.processes.find(isApi)!;
      let apiExit: number | null | undefined;
      api.once('exit', (code) => (apiExit = code));
      const stream = await SseClient.open(stack.baseUrl);
      const first = await projectorChildPid(api);
      process.kill(first, 'SIGKILL');

      // The heartbeat the dead child wrote is still fresh, but its process is gone: not running, now.
      const health = await eventually(async () => {
        const res = await stack.request<{ status: string; projector: string }>('GET', '/healthz', { as: null });
        return res.status === 503 ? res : undefined;
      }, 2000);
      expect(health.body).toMatchObject({ status: 'unavailable', projector: 'not running' });
      expect((await stack.request('GET', '/livez', { as: null })).status).toBe(200);
      // A write while the projector is down waits for its projection (read-your-writes) and is read back.
      const created = await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'after-crash', note: { display_name: 'Written while restarting' } });
      expect(created.status).toBe(200);
      const read = await stack.rpc<{ note: { displayName: string } }>(`${NOTES}/GetNote`, { name: 'notes/after-crash' });
      expect(read).toMatchObject({ status: 200, body: { note: { displayName: 'Written while restarting' } } });
      const listed = await stack.rpc<{ notes: Array<{ name: string }> }>(`${NOTES}/ListNotes`, { filter: 'display_name = "Written while restarting"' });
      expect(listed.body.notes.map((n) => n.name)).toEqual(['notes/after-crash']);

      await stack.waitHealthy();
      const second = await projectorChildPid(api);
      expect(second).not.toBe(first);
      expect(apiExit).toBeUndefined();
      // An open stream outlives the crash: the api never went away.
      expect(stream.ended).toBe(false);
      await stream.close();
      const restart = stack.logLines('api').find((l) => typeof l.msg === 'string' && l.msg.startsWith('projector exited (SIGKILL)'));
      expect(restart).toMatchObject({ level: 50, msg: expect.stringMatching(/restarting it in \d+ ms \(restart 1\)$/) });
    } finally {
      await stack.destroy();
    }
  }, 60_000);
});

/** The pid of the api's forked projector (Linux: the api's children from /proc). */
async function projectorChildPid(api: ChildProcess): Promise<number> {
  const fs = await import('node:fs');
  const children = fs.readFileSync(`/proc/${api.pid}/task/${api.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  const projector = children.find((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('projector'));
  if (!projector) throw new Error(`no projector child of ${api.pid}: ${children.join(', ')}`);
  return projector;
}
