// The projector's projection list is imported below; its contracts use decorator metadata.
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HEARTBEAT_KEY, type Heartbeat } from '@svc/infrastructure/projection/heartbeat';
import { createReadStore } from '@svc/infrastructure/read-store';
import { dumpReadModels } from './support/read-models';
import { PROJECTIONS } from '@svc/application/areas';
import { CLI_MAIN, eventually, Stack, TEST_CONFIG } from './support/harness';

const NOTES = 'svc.notes.v1.NotesService';
const ROLES = 'svc.rbac.v1.RolesService';

interface Cli {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run svc -- ...` as a separate process on the stack's data directory. */
function svc(stack: Stack, ...args: string[]): Promise<Cli> {
  const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_MAIN, ...args], { env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function svcJson<T>(stack: Stack, ...args: string[]): Promise<T> {
  const res = await svc(stack, ...args, '--json');
  if (res.code !== 0) throw new Error(`svc ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout) as T;
}

interface EventView {
  position: string;
  stream: string;
  revision: number;
  time: string;
  type: string;
  actor: string;
  subject: string;
  requestId: string | null;
  data: Record<string, unknown>;
}
interface Status {
  backend: string;
  head: string;
  projector: { running: boolean; pid: number; ageMs: number } | null;
  projections: Array<{ name: string; checkpoint: string | null; lag: number | null; lagSeconds: number; caughtUp: boolean; parked: number }>;
}

describe('operator CLI (npm run svc) against a running stack', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
    const ok = async (p: Promise<{ status: number; body: unknown }>) => expect((await p).status).toBe(200);
    await ok(stack.rpc(`${NOTES}/CreateNote`, { note_id: 'x', request_id: 'req-create-x', note: { display_name: 'first' } }));
    await ok(stack.rpc(`${NOTES}/UpdateNote`, { note: { name: 'notes/x', display_name: 'second' }, update_mask: 'display_name' }));
    await ok(stack.rpc(`${NOTES}/CreateNote`, { note_id: 'y', note: { display_name: 'other' } }));
    await ok(stack.rpc(`${ROLES}/CreateRole`, { role_id: 'auditor', role: { display_name: 'Auditor', permissions: ['KNOWLEDGE_WRITE'] } }));
    await ok(stack.rpc(`${ROLES}/AssignRoles`, { user: 'users/bob', roles: ['roles/auditor'] }));
  });
  afterAll(async () => {
    await stack.destroy();
  });

  it('audit lists every event of one resource with who, when and the payload', async () => {
    const [trail, human, elsewhere] = await Promise.all([
      svcJson<{ streams: string[]; events: EventView[] }>(stack, 'audit', 'acme', 'notes/x'),
      svc(stack, 'audit', 'acme', 'notes/x'),
      svc(stack, 'audit', 'globex', 'notes/x'),
    ]);
    expect(trail.streams).toEqual(['note-acme:notes/x']);
    expect(trail.events.map((e) => [e.revision, e.type, e.actor, e.subject])).toEqual([
      [0, 'NoteCreated', 'users/alice', 'users/alice'],
      [1, 'NoteUpdated', 'users/alice', 'users/alice'],
    ]);
    expect(trail.events[0]).toMatchObject({ requestId: 'req-create-x', data: { resource: { name: 'notes/x', displayName: 'first' } } });
    expect(trail.events[1].data).toMatchObject({ set: { displayName: 'second' } });
    expect(Date.parse(trail.events[0].time)).not.toBeNaN();

    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/NoteCreated\s+actor=users\/alice\s+request=req-create-x/);
    expect(human.stdout.indexOf('NoteCreated')).toBeLessThan(human.stdout.indexOf('NoteUpdated'));

    // Another organization's resource of the same name is not this one.
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stdout).toMatch(/no events for notes\/x in organization globex/);
  });

  it('audit of a role shows the access events that name it', async () => {
    const trail = await svcJson<{ streams: string[]; events: EventView[] }>(stack, 'audit', 'acme', 'roles/auditor');
    expect(trail.streams).toEqual(['access-acme']);
    expect(trail.events.map((e) => e.type)).toEqual(['RoleCreated', 'RolesAssigned']);
    expect(trail.events[1].data).toMatchObject({ member: 'users/bob', roles: ['roles/auditor'] });
  });

  it('the event browser filters by type, stream and organization, and pages with --after', async () => {
    const [updated, stream, globex, first, bad] = await Promise.all([
      svcJson<{ events: EventView[] }>(stack, 'events', '--type', 'NoteUpdated'),
      svcJson<{ events: EventView[] }>(stack, 'events', '--stream', 'note-acme:notes/y'),
      svcJson<{ events: EventView[] }>(stack, 'events', '--org', 'globex'),
      svcJson<{ events: EventView[]; next: string }>(stack, 'events', '--limit', '2'),
      svc(stack, 'events', '--limit', 'many'),
    ]);
    expect(updated.events.length).toBeGreaterThan(0);
    expect(updated.events.every((e) => e.type === 'NoteUpdated')).toBe(true);
    expect(updated.events.map((e) => e.stream)).toContain('note-acme:notes/x');

    expect(stream.events.map((e) => e.type)).toEqual(['NoteCreated']);
    expect(globex.events.length).toBeGreaterThan(0);
    expect(globex.events.every((e) => e.stream.includes('-globex'))).toBe(true);

    expect(first.events).toHaveLength(2);
    const second = await svcJson<{ events: EventView[] }>(stack, 'events', '--limit', '2', '--after', first.next);
    expect(Number(second.events[0].position)).toBe(Number(first.events[1].position) + 1);

    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--limit/);
  });

  it('events exits 1 when nothing matches, and filters by --since and --correlation (the request id in the log lines)', async () => {
    const none = await svc(stack, 'events', '--type', 'NoSuchEvent');
    expect(none).toMatchObject({ code: 1, stdout: 'no events\n' });

    const requestId = 'cli-correlation-7';
    const created = await stack.request('POST', `/${NOTES}/CreateNote`, { body: { note_id: 'correlated', note: { display_name: 'c' } }, headers: { 'x-request-id': requestId } });
    expect(created.status).toBe(200);
    const correlated = await svcJson<{ events: EventView[] }>(stack, 'events', '--correlation', requestId);
    expect(correlated.events.map((e) => [e.type, e.stream])).toEqual([['NoteCreated', 'note-acme:notes/correlated']]);
    expect((await svc(stack, 'events', '--correlation', 'never-sent')).code).toBe(1);

    const all = await svcJson<{ events: EventView[] }>(stack, 'events', '--limit', '1000');
    const recent = await svcJson<{ events: EventView[] }>(stack, 'events', '--since', '1h', '--limit', '1000');
    expect(recent.events.map((e) => e.position)).toEqual(all.events.map((e) => e.position));
    // From the time of the correlated event on: that event and what followed, forwards and newest first.
    const from = correlated.events[0].time;
    const after = await svcJson<{ events: EventView[] }>(stack, 'events', '--since', from, '--org', 'acme');
    expect(after.events[0]).toMatchObject({ type: 'NoteCreated', stream: 'note-acme:notes/correlated' });
    const newest = await svcJson<{ events: EventView[] }>(stack, 'events', '--reverse', '--since', from, '--org', 'acme');
    expect(newest.events.map((e) => e.position)).toEqual([...after.events.map((e) => e.position)].reverse());
    expect((await svc(stack, 'events', '--since', new Date(Date.now() + 3_600_000).toISOString())).code).toBe(1);
    const bad = await svc(stack, 'events', '--since', 'yesterday');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since must be a time/);
  });

  it('refuses a data directory that does not exist, and creates nothing there', async () => {
    const missing = path.join(stack.dataDir, 'no-such-dir');
    const res = await new Promise<Cli>((resolve) => {
      const env = { ...process.env, SVC_DATA_DIR: missing, EVENTSTORE_URL: '', MONGODB_URL: '' };
      execFile(process.execPath, [CLI_MAIN, 'projections', 'status'], { env }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`data directory ${missing} does not exist`);
    expect(fs.existsSync(missing)).toBe(false);
  });

  it('projections status shows every projection caught up (lag 0) and the projector heartbeat', async () => {
    const status = await eventually(async () => {
      const s = await svcJson<Status>(stack, 'projections', 'status');
      return s.projections.every((p) => p.lag === 0) ? s : undefined;
    });
    expect(status.backend).toBe('sqlite');
    // Every projection the projector runs (each area adds its own).
    expect(status.projections.map((p) => p.name).sort()).toEqual(PROJECTIONS.map((p) => p.name).sort());
    expect(status.projections.map((p) => p.name)).toEqual(expect.arrayContaining(['access', 'connections', 'notes', 'organizations']));
    for (const p of status.projections) expect(p).toMatchObject({ checkpoint: status.head, caughtUp: true, parked: 0, lagSeconds: 0 });
    expect(status.projector).toMatchObject({ running: true, pid: expect.any(Number) });
    expect(status.projector?.ageMs).toBeLessThan(5000);

    const human = await svc(stack, 'projections', 'status');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/projector running/);
    expect(human.stdout).toMatch(/^PROJECTION\s+CHECKPOINT\s+LAG\s+LAG TIME\s+PARKED\s+LAST ERROR$/m);
    expect(human.stdout).toMatch(/^notes\s+\d+\s+0\s+0\.0 s\s+0$/m);
  });

  it('config apply is idempotent, and a new member’s key works over HTTP right after', async () => {
    const same = await svcJson<{ changes: number }>(stack, 'config', 'apply', path.join(stack.dataDir, 'svc-config.yaml'));
    expect(same.changes).toBe(0);

    const withErin = TEST_CONFIG.replace(
      '    service_accounts:',
      '      - user: erin\n        roles: [admin]\n        api_keys: ["erin-key:erin-secret"]\n    service_accounts:',
    );
    const file = path.join(stack.dataDir, 'with-erin.yaml');
    fs.writeFileSync(file, withErin);
    const erin = { username: 'erin-key', password: 'erin-secret' };
    expect((await stack.request('GET', '/v1/auth', { as: erin })).status).toBe(401);

    const applied = await svc(stack, 'config', 'apply', file);
    expect(applied.code).toBe(0);
    const changes = Number(/(\d+) change\(s\) applied/.exec(applied.stdout)?.[1]);
    expect(changes).toBeGreaterThan(0);
    const auth = await stack.request('GET', '/v1/auth', { as: erin });
    expect(auth.status).toBe(200);
    expect(auth.body).toMatchObject({ identity: { actor: 'users/erin', organization: 'acme' } });

    expect((await svcJson<{ changes: number }>(stack, 'config', 'apply', file)).changes).toBe(0);
  });

  it('help, and clear errors for a wrong command line', async () => {
    const [help, nonsense, unknown] = await Promise.all([
      svc(stack, 'help'),
      svc(stack, 'nonsense'),
      svc(stack, 'projections', 'rebuild', 'nope'),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/projections rebuild/);
    expect(nonsense.code).toBe(2);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown projection 'nope'.*notes/);
  });

  // Last: it stops the stack.
  it('with no projector running, rebuild --all runs in the CLI process and gives the same read models', async () => {
    const collections = [...new Set(PROJECTIONS.flatMap((p) => p.collections))];
    const dump = () => dumpReadModels(stack.dataDir, collections);
    const before = await dump();
    expect(before.notes.length).toBeGreaterThan(0);
    await stack.stop();
    // Age the last heartbeat instead of waiting out the 5 s after which a silent projector counts as stopped.
    const reads = await createReadStore({ SVC_DATA_DIR: stack.dataDir });
    const beat = await reads.getMeta<Heartbeat>(HEARTBEAT_KEY);
    await reads.putMeta(HEARTBEAT_KEY, { ...beat, at: new Date(Date.now() - 60_000).toISOString() });
    await reads.close();

    const rebuilt = await svcJson<{ results: Array<{ projection: string; events: number; by: string }> }>(stack, 'projections', 'rebuild', '--all');
    // Every projection, in the projector's order (each area adds its own to PROJECTIONS).
    expect(rebuilt.results.map((r) => [r.projection, r.by])).toEqual(PROJECTIONS.map((p) => [p.name, 'cli']));
    const status = await svcJson<Status>(stack, 'projections', 'status');
    expect(status.projector?.running).toBe(false);
    expect(status.projections.every((p) => p.lag === 0 && p.checkpoint === status.head)).toBe(true);
    expect(await dump()).toEqual(before);
  });
});
