/**
 * Benchmark entry (`npm run bench`, or `BENCH_SECONDS=3 npm run bench` for a quick run).
 *
 * Layout: the built api and projector run as two separate processes on a fresh temporary data
 * directory (embedded SQLite default); the load generator runs in this process on the same machine.
 * See docs/performance.md for what each figure means and how to read a miss.
 *
 * Environment:
 *   BENCH_SECONDS          measured seconds per HTTP phase (default 10)
 *   BENCH_WARMUP_SECONDS   warm-up before each HTTP phase (default 2)
 *   BENCH_CLIENTS          concurrent keep-alive clients (default 32)
 *   BENCH_LIST_NOTES       notes seeded into the List organization (default 10000)
 *   BENCH_HOT_CLIENTS      clients updating the hot resources (default 64)
 *   BENCH_HOT_RESOURCES    notes they all update (default 8)
 *   BENCH_LAG_SAMPLES      projection-lag samples (default max(100, 30 x BENCH_SECONDS))
 *   BENCH_REBUILD_EVENTS   events in the log before the rebuild (default 100000)
 *   BENCH_SESSION_MESSAGES messages in the long session the session phase reads from its end (default 10000)
 *   BENCH_PHASES           comma list of ab-create,planner,create,get,list,hot,lag,notify,idle,streams,flood,rebuild,session,big-org,long-stream
 *                          (default all; ab-create only when BENCH_BASE is set)
 *   BENCH_BASE             ab-create: a built checkout of another commit (default none; the issue-3 code is 0d5b15f), whose
 *                          CreateNote rate is measured against this build's in one run; BENCH_AB_ROUNDS rounds each (default 3)
 *   BENCH_LONG_STREAM      long-stream: updates of one note (default 100000), BENCH_LONG_STREAM_SAMPLE timed at each mark (default 200)
 *   BENCH_BIG_ORG_MEMBERS  big-org: members of the big organization (default 10000); BENCH_BIG_ORG_SAMPLES
 *                          AssignRoles samples per organization (default 100; a quarter as many logins and histories)
 *   BENCH_SUBSCRIBERS      notify: streams over two api processes (default 200); BENCH_PUBLISHES publishes (default 200)
 *   BENCH_IDLE_SUBSCRIBERS idle: streams held open on one api (default 2000), by one member (the api's
 *                          per-member stream cap is raised to it; the other stream caps keep their defaults)
 *   BENCH_STREAMS          streams: subscribers that never read, spread over 10 roleless members of one
 *                          organization (100 each, the default per-member cap; default 1000)
 *   BENCH_STREAM_PUBLISHES streams: publishes to that organization (default 25) of BENCH_STREAM_BYTES (default 240000)
 *   BENCH_FLOOD_LOOPS      flood: concurrent loops of wrong secrets for one key (default 32), for BENCH_SECONDS;
 *   BENCH_PLANNER_TABLES   planner: tables of the catalog the indicator planner reads (default 2000; bench/planner.ts)
 *   BENCH_FLOOD_LOGINS     first sign-ins of another tenant measured, a third before the flood (default 24)
 *   BENCH_PROFILE          api | projector | both: run that process under --cpu-prof, print its hot functions
 *   BENCH_READ_WAIT_MS     passed to the api as SVC_READ_WAIT_MS (diagnostic: 0 = commands do not wait for projections)
 *   BENCH_KEEP=1           keep the data directory (and profiles); BENCH_VERBOSE=1 echoes the processes' output
 *   BENCH_JSON=file        also write the results as JSON
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CpuMeter, formatCpu } from './cpu';
import { Client, runCount, runLoad } from './load';
import { type LagResult, measureLag } from './lag';
import { formatProfile, newestProfile, summarizeProfile } from './profile';
import { measureDelivery, measureIdleMemory } from './notifications';
import { measureStalledStreams } from './streams';
import { measureRebuild, type RebuildResult, seedEvents, type SeedResult } from './rebuild';
import { seedLongSession } from './session';
import { type FloodResult, measureFlood } from './flood';
import { measureBigOrg } from './bigorg';
import { measureLongStream } from './long-stream';
import { type AbSide, measureCreateAb } from './ab';
import { measurePlanner } from './planner';
import { LISTER, loginKeys, READERS, Stack, WRITER } from './stack';
import { fmtMs, fmtRate } from './stats';
import { describeErrors, loadLine, log, machine, type Row, table } from './report';
import { loadSettings, numberEnv } from './settings';

const NOTES = '/svc.notes.v1.NotesService';
// ------------------------------------------------------------------ phases

async function main(): Promise<void> {
  const settings = loadSettings();
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-prof-'));
  const cpuProf = (name: string): string[] => ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, name)}`];
  const floodLogins = Math.round(numberEnv('BENCH_FLOOD_LOGINS', 24));
  const stack = new Stack({
    verbose: settings.verbose,
    loginKeys: settings.phases.has('flood') ? floodLogins : 0,
    apiEnv: {
      ...(settings.readWaitMs === undefined ? {} : { SVC_READ_WAIT_MS: settings.readWaitMs }),
      // The idle phase holds its streams as one member.
      SVC_NOTIFY_MAX_SUBSCRIBERS_PER_MEMBER: String(Math.max(100, Math.round(numberEnv('BENCH_IDLE_SUBSCRIBERS', 2000)))),
    },
    apiNodeArgs: settings.profile.api ? cpuProf('api') : [],
    projectorNodeArgs: settings.profile.projector ? cpuProf('projector') : [],
  });

  const clients: Client[] = [];
  let cleaned = false;
  const cleanup = async (): Promise<void> => {
    if (cleaned) return;
    cleaned = true;
    // Stop the load first: the api drains in-flight keep-alive requests before it exits.
    for (const c of clients) c.close();
    await stack.stop();
    if (!settings.keep) {
      stack.removeData();
      if (!settings.profile.api && !settings.profile.projector) fs.rmSync(profileDir, { recursive: true, force: true });
    }
  };
  process.once('exit', () => stack.killNow());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping the api and the projector`);
      void cleanup().finally(() => process.exit(130));
    });
  }

  const meter = new CpuMeter(() => [
    { name: 'api', pid: stack.apiPid },
    { name: 'projector', pid: stack.projectorPid },
    { name: 'bench', pid: process.pid },
  ]);
  const m = machine();
  log(`machine: ${m.cpu}, ${m.cores} cores, ${m.memory}, Node ${m.node}, ${m.os}, load average ${m.loadavg}`);
  log(`data dir ${stack.dataDir}; ${settings.clients} clients, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s per HTTP phase`);
  const rows: Row[] = [];
  const details: string[] = [];
  const results: Record<string, unknown> = { date: new Date().toISOString(), machine: m, settings: { ...settings, phases: [...settings.phases] } };

  try {
    // In this process, before the stack starts: the indicator planner's own cost (issue 20).
    if (settings.phases.has('planner')) {
      const tables = Math.round(numberEnv('BENCH_PLANNER_TABLES', 2000));
      log(`planner: indicator queries planned one at a time against a ${tables}-table catalog ...`);
      const r = await measurePlanner(settings.seconds, settings.warmupSeconds, tables);
      details.push(
        `Indicator planner: ${r.plans} plans in ${r.seconds.toFixed(1)} s (${fmtRate(r.rate)}, ${r.failures} failures) against a ${r.tables}-table catalog, ` +
          `one at a time: p50 ${fmtMs(r.latency.p50)}, p90 ${fmtMs(r.latency.p90)}, p99 ${fmtMs(r.latency.p99)}, max ${fmtMs(r.latency.max)}`,
      );
      results.planner = r;
      rows.push({ measure: `Indicator plans (${r.tables}-table catalog, one at a time)`, result: `${fmtRate(r.rate).replace('/s', '')} plans/s`, target: '' });
      rows.push({ measure: 'Indicator plan p99', result: fmtMs(r.latency.p99), target: '<= 100 ms', pass: r.latency.p99 <= 100 && r.failures === 0 });
    }

    // Before this run's own stack starts, so that nothing else of the bench runs meanwhile.
    if (settings.phases.has('ab-create')) {
      const baseDir = process.env.BENCH_BASE;
      if (!baseDir) throw new Error('ab-create needs BENCH_BASE: a built checkout of the commit to compare with (see bench/ab.ts)');
      const rounds = Math.round(numberEnv('BENCH_AB_ROUNDS', 3));
      log(`ab-create: CreateNote, ${rounds} rounds of ${baseDir} and of this build, alternating ...`);
      const r = await measureCreateAb({ baseDir, rounds, clients: settings.clients, warmupMs: settings.warmupSeconds * 1000, durationMs: settings.seconds * 1000, verbose: settings.verbose, log });
      results.abCreate = r;
      details.push(...r.details.map((d) => `ab-create ${d}`));
      const side = (s: AbSide) => `${fmtRate(s.median.rate)}, p50 ${fmtMs(s.median.p50)}, p99 ${fmtMs(s.median.p99)} (rates ${s.rates.map(fmtRate).join(', ')})`;
      rows.push(
        { measure: 'ab-create: base CreateNote (median of rounds)', result: side(r.base), target: '' },
        { measure: 'ab-create: this build CreateNote (median of rounds)', result: side(r.head), target: '' },
        { measure: 'ab-create: throughput ratio this : base', result: `${r.ratio.toFixed(2)}x`, target: '>= 1.25x', pass: r.ratio >= 1.25 },
        { measure: 'ab-create: p99 this vs base', result: `${fmtMs(r.head.median.p99)} vs ${fmtMs(r.base.median.p99)}`, target: 'no worse', pass: r.head.median.p99 <= r.base.median.p99 },
        { measure: 'ab-create: errors', result: `${r.head.errors} / ${r.base.errors}`, target: '0', pass: r.head.errors + r.base.errors === 0 },
      );
    }
    await stack.start();
    log(`api pid ${stack.apiPid}, projector pid ${stack.projectorPid} on ${stack.baseUrl}`);
    const writer = new Client(stack.baseUrl, WRITER, settings.clients);
    const lister = new Client(stack.baseUrl, LISTER, settings.clients);
    clients.push(writer, lister);
    const load = { clients: settings.clients, warmupMs: settings.warmupSeconds * 1000, durationMs: settings.seconds * 1000, meter };
    const created: string[] = [];

    // 1. CreateNote: every request appends one NoteCreated and waits (read your writes) for the projector.
    if (settings.phases.has('create')) {
      log('CreateNote ...');
      const r = await runLoad(writer, {
        ...load,
        path: `${NOTES}/CreateNote`,
        body: (c, s) =>
          JSON.stringify({
            note_id: `c${c}-${s}`,
            note: { display_name: `Note ${c}-${s}`, tool_name: `tool-${s % 20}`, description: 'created by the benchmark' },
          }),
        onOk: (c, s) => created.push(`notes/c${c}-${s}`),
      });
      details.push(loadLine('CreateNote', r), describeErrors('CreateNote', r));
      results.create = r;
      rows.push(
        { measure: `CreateNote throughput (${settings.clients} clients)`, result: fmtRate(r.rate), target: '>= 3,000/s', pass: r.rate >= 3000 },
        { measure: 'CreateNote latency p50', result: fmtMs(r.latency.p50), target: '' },
        { measure: 'CreateNote latency p99', result: fmtMs(r.latency.p99), target: '< 50 ms', pass: r.latency.p99 < 50 },
        { measure: 'CreateNote errors (non-200)', result: String(r.errors), target: '0', pass: r.errors === 0 },
      );
    }

    // 2. GetNote over existing notes (those just created; seeded when the create phase was skipped).
    if (settings.phases.has('get')) {
      if (created.length === 0) {
        log('seeding 2,000 notes for GetNote ...');
        await runCount(writer, {
          clients: settings.clients,
          total: 2000,
          path: `${NOTES}/CreateNote`,
          body: (i) => JSON.stringify({ note_id: `g${i}`, note: { display_name: `Note ${i}`, tool_name: `tool-${i % 20}` } }),
        });
        for (let i = 0; i < 2000; i++) created.push(`notes/g${i}`);
      }
      const check = await writer.json<{ note?: { name?: string } }>(`${NOTES}/GetNote`, { name: created[0] });
      if (check.status !== 200 || check.body.note?.name !== created[0]) throw new Error(`GetNote sanity check failed: ${JSON.stringify(check)}`);
      log(`GetNote over ${created.length.toLocaleString('en-US')} notes ...`);
      const r = await runLoad(writer, {
        ...load,
        path: `${NOTES}/GetNote`,
        body: () => JSON.stringify({ name: created[Math.floor(Math.random() * created.length)] }),
      });
      details.push(loadLine('GetNote', r), describeErrors('GetNote', r));
      results.get = r;
      rows.push(
        { measure: `GetNote throughput (${settings.clients} clients)`, result: fmtRate(r.rate), target: '' },
        { measure: 'GetNote latency p99', result: fmtMs(r.latency.p99), target: '' },
        { measure: 'GetNote errors (non-200)', result: String(r.errors), target: '0', pass: r.errors === 0 },
      );
    }

    // 3. ListNotes with a filter over an organization holding exactly BENCH_LIST_NOTES notes.
    if (settings.phases.has('list')) {
      log(`seeding ${settings.listNotes.toLocaleString('en-US')} notes into globex through CreateNote ...`);
      const seed = await runCount(lister, {
        clients: settings.clients,
        total: settings.listNotes,
        path: `${NOTES}/CreateNote`,
        body: (i) =>
          JSON.stringify({
            note_id: `n${i}`,
            note: { display_name: `Note ${i}`, tool_name: `tool-${i % 20}`, description: `seeded note ${i}`, tool_args: { q: i } },
          }),
      });
      details.push(`List seeding: ${settings.listNotes} CreateNote in ${seed.seconds.toFixed(1)} s (${fmtRate(seed.rate)})`);
      const listBody = JSON.stringify({ filter: "tool_name = 'tool-7'", page_size: 50 });
      const check = await lister.json<{ notes?: unknown[]; nextPageToken?: string }>(`${NOTES}/ListNotes`, JSON.parse(listBody));
      const expectedPage = Math.min(50, Math.ceil(settings.listNotes / 20));
      if (check.status !== 200 || check.body.notes?.length !== expectedPage) {
        throw new Error(`ListNotes sanity check failed (wanted ${expectedPage} notes): ${JSON.stringify(check).slice(0, 500)}`);
      }
      log(`ListNotes (filter tool_name = 'tool-7', page_size 50, ${settings.listNotes} notes in the org) ...`);
      const r = await runLoad(lister, { ...load, path: `${NOTES}/ListNotes`, body: () => listBody });
      details.push(loadLine('ListNotes', r), describeErrors('ListNotes', r));
      results.list = { ...r, seed };
      rows.push(
        { measure: `ListNotes throughput (filter, ${settings.listNotes / 1000}k notes)`, result: fmtRate(r.rate), target: '>= 500/s', pass: r.rate >= 500 },
        { measure: 'ListNotes latency p99', result: fmtMs(r.latency.p99), target: '' },
        { measure: 'ListNotes errors (non-200)', result: String(r.errors), target: '0', pass: r.errors === 0 },
      );
    }

    // Read from the end of a long session (issue 9: Read must stay fast on a long session).
    if (settings.phases.has('session')) {
      const n = settings.sessionMessages;
      log(`writing ${n.toLocaleString('en-US')} messages into one session through Write ...`);
      const seed = await seedLongSession(writer, n);
      details.push(`Session seeding: ${n} messages in ${seed.seconds.toFixed(1)} s`);
      const check = await writer.json<{ messages?: unknown[]; sessionLength?: number }>('/svc.nxagent.v2.AgentService/Read', JSON.parse(seed.readBody));
      if (check.status !== 200 || check.body.sessionLength !== n || check.body.messages?.length !== Math.min(10, n)) {
        throw new Error(`Read sanity check failed: ${JSON.stringify(check).slice(0, 500)}`);
      }
      log(`Read of the last 10 messages of a ${n}-message session ...`);
      const r = await runLoad(writer, { ...load, path: '/svc.nxagent.v2.AgentService/Read', body: () => seed.readBody });
      details.push(loadLine('Read (session end)', r), describeErrors('Read', r));
      rows.push(
        { measure: `Read from the end of a ${n / 1000}k-message session`, result: fmtRate(r.rate), target: '' },
        { measure: 'Read latency p50 / p99', result: `${fmtMs(r.latency.p50)} / ${fmtMs(r.latency.p99)}`, target: '' },
        { measure: 'Read errors (non-200)', result: String(r.errors), target: '0', pass: r.errors === 0 },
      );
    }

    // Big organizations (issue 17, item 3): per-command costs at 10,000 members against 5.
    if (settings.phases.has('big-org')) {
      const members = Math.round(numberEnv('BENCH_BIG_ORG_MEMBERS', 10_000));
      log(`big-org: seeding ${members.toLocaleString('en-US')} members, then AssignRoles, first bearer logins and a role's history ...`);
      const r = await measureBigOrg(stack.baseUrl, stack.eventsFile, members, Math.round(numberEnv('BENCH_BIG_ORG_SAMPLES', 100)));
      results.bigOrg = r;
      const k = `${(members / 1000).toLocaleString('en-US')}k`;
      const pair = (a: { p50: number; p99: number }) => `${fmtMs(a.p50)} / ${fmtMs(a.p99)}`;
      const ratio = r.big.assignRoles.p50 / r.small.assignRoles.p50;
      details.push(`big-org: ${members} members seeded in ${r.seedSeconds.toFixed(1)} s; figures p50 / p99, sequential requests`);
      rows.push(
        { measure: `AssignRoles at ${k} / 5 members (p50 / p99)`, result: `${pair(r.big.assignRoles)} vs ${pair(r.small.assignRoles)}`, target: '' },
        { measure: `AssignRoles p50 ratio ${k} : 5 members`, result: `${ratio.toFixed(1)}x`, target: '<= 3x', pass: ratio <= 3 },
        { measure: `First bearer login at ${k} / 5 members`, result: `${pair(r.big.firstLogin)} vs ${pair(r.small.firstLogin)}`, target: '' },
        { measure: `First bearer login p50 ratio`, result: `${(r.big.firstLogin.p50 / r.small.firstLogin.p50).toFixed(1)}x`, target: '' },
        { measure: `Role :history at ${k} / 5 members`, result: `${pair(r.big.roleHistory)} vs ${pair(r.small.roleHistory)}`, target: '' },
        { measure: `Role :history p50 ratio`, result: `${(r.big.roleHistory.p50 / r.small.roleHistory.p50).toFixed(1)}x`, target: '' },
      );
    }

    // Long streams (issue 17, item 5): an update at event 100,000 of one note against one at event 1,000.
    if (settings.phases.has('long-stream')) {
      const events = Math.round(numberEnv('BENCH_LONG_STREAM', 100_000));
      const sample = Math.round(numberEnv('BENCH_LONG_STREAM_SAMPLE', 200));
      log(`long-stream: ${events.toLocaleString('en-US')} updates of one note, ${sample} timed around event 1,000 and at the end ...`);
      const client = new Client(stack.baseUrl, WRITER, 1);
      clients.push(client);
      const r = await measureLongStream(client, { events, sample });
      client.close();
      results.longStream = r;
      const pair = (a: { p50: number; p99: number }) => `${fmtMs(a.p50)} / ${fmtMs(a.p99)}`;
      details.push(`long-stream: ${r.events} events written in ${r.seedSeconds.toFixed(1)} s; UpdateNote p50 / p99 at event ${r.early.at}: ${pair(r.early)}, at event ${r.late.at}: ${pair(r.late)}`);
      rows.push(
        { measure: `UpdateNote at event ${r.early.at.toLocaleString('en-US')} / ${r.late.at.toLocaleString('en-US')} (p50 / p99)`, result: `${pair(r.early)} vs ${pair(r.late)}`, target: '' },
        { measure: 'UpdateNote p50 ratio, long stream : short', result: `${r.ratio.toFixed(2)}x`, target: '<= 1.5x', pass: r.ratio <= 1.5 },
      );
    }

    // 4. Hot resources: many clients updating a few notes (the per-stream queue keeps them from conflicting).
    if (settings.phases.has('hot')) {
      const { hotClients: n, hotResources: k } = settings;
      const hot = new Client(stack.baseUrl, WRITER, n);
      clients.push(hot);
      await runCount(hot, {
        clients: k,
        total: k,
        path: `${NOTES}/CreateNote`,
        body: (i) => JSON.stringify({ note_id: `hot-${i}`, note: { display_name: `Hot ${i}` } }),
      });
      log(`UpdateNote: ${n} clients on ${k} notes ...`);
      const r = await runLoad(hot, {
        ...load,
        clients: n,
        path: `${NOTES}/UpdateNote`,
        // Every update changes the name, so each one appends an event.
        body: (c, s) => JSON.stringify({ note: { name: `notes/hot-${c % k}`, display_name: `Hot ${c}-${s}` }, update_mask: 'display_name' }),
      });
      hot.close();
      const aborted = r.errorsByStatus.get(409) ?? 0;
      const abortedShare = r.requests ? aborted / r.requests : 0;
      details.push(loadLine(`UpdateNote (${n} clients, ${k} notes)`, r), describeErrors('UpdateNote', r));
      results.hot = { ...r, aborted, abortedShare };
      rows.push(
        { measure: `UpdateNote throughput (${n} clients, ${k} notes)`, result: fmtRate(r.rate), target: '' },
        { measure: 'UpdateNote latency p99 (hot notes)', result: fmtMs(r.latency.p99), target: '' },
        { measure: 'UpdateNote ABORTED share (hot notes)', result: `${(abortedShare * 100).toFixed(2)}% (${aborted})`, target: '0%', pass: aborted === 0 },
      );
    }

    // 5. Projection lag, commit to readable, not under load.
    if (settings.phases.has('lag')) {
      log(`projection lag over ${settings.lagSamples} samples ...`);
      meter.begin();
      const r: LagResult = await measureLag(stack.eventsFile, stack.readFile, settings.lagSamples, 10);
      details.push(
        `Projection lag: ${r.latency.count} samples (${r.timeouts} timed out); p50 ${fmtMs(r.latency.p50)}, p90 ${fmtMs(r.latency.p90)}, ` +
          `p99 ${fmtMs(r.latency.p99)}, max ${fmtMs(r.latency.max)}\n    ${formatCpu(meter.end())}`,
      );
      results.lag = r;
      rows.push(
        { measure: 'Projection lag p50 (append -> readable)', result: fmtMs(r.latency.p50), target: '' },
        { measure: 'Projection lag p99', result: fmtMs(r.latency.p99), target: '< 20 ms', pass: r.latency.p99 < 20 && r.timeouts === 0 },
      );
    }

    writer.close();
    lister.close();

    // Notification stream: Publish-to-delivery over two api processes, then idle streams' memory.
    if (settings.phases.has('notify')) {
      const subscribers = Math.round(numberEnv('BENCH_SUBSCRIBERS', 200));
      const publishes = Math.round(numberEnv('BENCH_PUBLISHES', 200));
      log('starting a second api instance ...');
      const second = await stack.startSecondApi();
      log(`notify: ${subscribers} subscribers over two api processes, ${publishes} publishes ...`);
      meter.begin();
      const d = await measureDelivery([stack.baseUrl, second], WRITER, subscribers, publishes);
      details.push(
        `Publish to delivery: ${d.subscribers} subscribers (half on each of two api processes), ${d.publishes} publishes one at a time, ` +
          `${d.latency.count} deliveries (${d.missing} missing): p50 ${fmtMs(d.latency.p50)}, p90 ${fmtMs(d.latency.p90)}, p99 ${fmtMs(d.latency.p99)}, max ${fmtMs(d.latency.max)}\n` +
          `    ${formatCpu(meter.end())}`,
      );
      results.notify = d;
      rows.push({ measure: `Publish to delivery p50 (${d.subscribers} subscribers, 2 apis)`, result: fmtMs(d.latency.p50), target: '<= 50 ms', pass: d.latency.p50 <= 50 && d.missing === 0 });
      rows.push({ measure: `Publish to delivery p99 (${d.subscribers} subscribers, 2 apis)`, result: fmtMs(d.latency.p99), target: '<= 250 ms', pass: d.latency.p99 <= 250 && d.missing === 0 });
    }
    if (settings.phases.has('idle')) {
      const count = Math.round(numberEnv('BENCH_IDLE_SUBSCRIBERS', 2000));
      log(`idle: ${count} idle subscribers on one api ...`);
      const r = await measureIdleMemory(stack.baseUrl, stack.apiPid!, WRITER, count);
      details.push(`Idle subscribers: api RSS ${r.rssBeforeMb.toFixed(1)} MB -> ${r.rssAfterMb.toFixed(1)} MB with ${r.subscribers} open streams (${r.perSubscriberKb.toFixed(1)} KB each)`);
      results.idle = r;
      rows.push({ measure: `api memory for ${r.subscribers} idle subscribers`, result: `+${(r.rssAfterMb - r.rssBeforeMb).toFixed(1)} MB RSS`, target: '<= 200 MB', pass: r.rssAfterMb - r.rssBeforeMb <= 200 });
    }

    // Streams that never read: bounded buffers, the other tenant's latency meanwhile (issue 16).
    if (settings.phases.has('streams')) {
      const streams = Math.round(numberEnv('BENCH_STREAMS', 1000));
      const publishes = Math.round(numberEnv('BENCH_STREAM_PUBLISHES', 25));
      const bytes = Math.round(numberEnv('BENCH_STREAM_BYTES', 240_000));
      log(`streams: ${streams} subscribers that never read, ${publishes} publishes of ${bytes} bytes, another organization's ListNotes meanwhile ...`);
      meter.begin();
      const r = await measureStalledStreams(stack.baseUrl, stack.apiPid!, WRITER, READERS, LISTER, { streams, publishes, bytes });
      details.push(
        `Streams that never read: ${r.streams} (${READERS.length} members) x ${r.publishes} publishes of ${r.publishBytes} bytes; ` +
          `api RSS ${r.rssBeforeMb.toFixed(1)} MB before, ${r.rssStreamsOpenMb.toFixed(1)} MB with the streams open, peak ${r.rssPeakMb.toFixed(1)} MB, ${r.rssAfterMb.toFixed(1)} MB after; ` +
          `${r.endedSlow} streams ended as slow consumers\n` +
          `    Publish p50 ${fmtMs(r.publishLatency.p50)}, p99 ${fmtMs(r.publishLatency.p99)}, max ${fmtMs(r.publishLatency.max)}; ` +
          `other organization's ListNotes (${r.otherTenant.count} requests, one at a time) p50 ${fmtMs(r.otherTenant.p50)}, p99 ${fmtMs(r.otherTenant.p99)}, max ${fmtMs(r.otherTenant.max)}\n` +
          `    ${formatCpu(meter.end())}`,
      );
      results.streams = r;
      rows.push({ measure: `api RSS growth, ${r.streams} non-reading streams x ${r.publishes} large publishes`, result: `+${(r.rssPeakMb - r.rssBeforeMb).toFixed(1)} MB peak`, target: '<= 300 MB', pass: r.rssPeakMb - r.rssBeforeMb <= 300 });
      rows.push({ measure: "other organization's p99 during them", result: fmtMs(r.otherTenant.p99), target: '<= 100 ms', pass: r.otherTenant.p99 <= 100 });
    }

    // Wrong-password flood on one key username: another tenant's first sign-ins and an unrelated request, before and during.
    if (settings.phases.has('flood')) {
      const loops = Math.round(numberEnv('BENCH_FLOOD_LOOPS', 32));
      log(`flood: ${loops} loops of wrong secrets for ${WRITER.username} for ${settings.seconds} s; first sign-ins of initech and ListNotes of globex ...`);
      meter.begin();
      const r: FloodResult = await measureFlood(stack.baseUrl, { flooded: WRITER.username, logins: loginKeys(floodLogins), unrelated: LISTER, loops, seconds: settings.seconds });
      const line = (label: string, s: { count: number; p50: number; p99: number; max: number }) =>
        `${label}: ${s.count} samples, p50 ${fmtMs(s.p50)}, p99 ${fmtMs(s.p99)}, max ${fmtMs(s.max)}`;
      const answers = Object.entries(r.floodStatuses).map(([status, n]) => `${status}: ${n}`).join(', ');
      details.push(
        `Flood: ${r.loops} loops for ${r.seconds.toFixed(1)} s, answered ${answers} (${fmtRate(Object.values(r.floodStatuses).reduce((a, b) => a + b, 0) / r.seconds)})\n` +
          `    ${line('first sign-in before', r.baseline.firstLogin)}\n` +
          `    ${line('first sign-in during', r.during.firstLogin)} (${r.during.firstLoginFailures} not 200)\n` +
          `    ${line('ListNotes (other tenant) before', r.baseline.unrelated)}\n` +
          `    ${line('ListNotes (other tenant) during', r.during.unrelated)} (${r.during.unrelatedFailures} not 200)\n` +
          `    ${formatCpu(meter.end())}`,
      );
      results.flood = r;
      rows.push(
        { measure: 'First sign-in p50 / p99, no flood', result: `${fmtMs(r.baseline.firstLogin.p50)} / ${fmtMs(r.baseline.firstLogin.p99)}`, target: '' },
        { measure: `First sign-in p50 / p99, ${r.loops}-loop flood`, result: `${fmtMs(r.during.firstLogin.p50)} / ${fmtMs(r.during.firstLogin.p99)}`, target: '0 refused', pass: r.during.firstLoginFailures === 0 },
        { measure: 'Unrelated ListNotes p50 / p99, no flood', result: `${fmtMs(r.baseline.unrelated.p50)} / ${fmtMs(r.baseline.unrelated.p99)}`, target: '' },
        { measure: `Unrelated ListNotes p50 / p99, flood`, result: `${fmtMs(r.during.unrelated.p50)} / ${fmtMs(r.during.unrelated.p99)}`, target: '0 refused', pass: r.during.unrelatedFailures === 0 },
      );
    }

    // 6. Rebuild from position 0 with the projector stopped.
    if (settings.phases.has('rebuild')) {
      log('stopping the projector ...');
      await stack.stopProjector();
      log(`topping the log up to ${settings.rebuildEvents.toLocaleString('en-US')} events ...`);
      const seed: SeedResult = await seedEvents(stack.eventsFile, settings.rebuildEvents);
      details.push(
        `Rebuild seeding: appended ${seed.appended} NoteCreated directly in ${seed.seconds.toFixed(1)} s ` +
          `(${fmtRate(seed.rate)}, one append per new stream); log holds ${seed.totalEvents} events`,
      );
      log(`rebuilding the notes projection over ${seed.totalEvents.toLocaleString('en-US')} events ...`);
      meter.begin();
      const r: RebuildResult = await measureRebuild(stack.eventsFile, stack.readFile);
      details.push(
        `Rebuild: ${r.events} events in ${r.seconds.toFixed(2)} s (${fmtRate(r.rate)}); notes collection now holds ${r.documents} documents\n` +
          `    ${formatCpu(meter.end())}`,
      );
      results.rebuild = { ...r, seed };
      rows.push({
        measure: `Rebuild notes from 0 (${Math.round(r.events / 1000)}k events)`,
        result: `${fmtRate(r.rate).replace('/s', '')} events/s`,
        target: '>= 50,000 events/s',
        pass: r.rate >= 50_000,
      });
    }

    await cleanup();

    const profiles: string[] = [];
    for (const name of ['api', 'projector'] as const) {
      if (!settings.profile[name]) continue;
      const file = newestProfile(path.join(profileDir, name));
      profiles.push(file ? formatProfile(`${name} CPU profile`, summarizeProfile(file)) : `${name}: no .cpuprofile written`);
    }

    const out = [
      '',
      `svc benchmark, ${new Date().toISOString()}`,
      `machine: ${m.cpu}, ${m.cores} cores, ${m.memory} RAM, Node ${m.node}, ${m.os} (load average at start ${m.loadavg})`,
      `layout: api and projector as separate processes (embedded SQLite), load generator in the bench process, ` +
        `${settings.clients} keep-alive clients, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s per HTTP phase` +
        (settings.readWaitMs === undefined ? '' : `; api run with SVC_READ_WAIT_MS=${settings.readWaitMs}`),
      '',
      table(rows),
      '',
      ...details.filter(Boolean),
      ...(profiles.length ? ['', ...profiles] : []),
      '',
    ];
    process.stdout.write(out.join('\n') + '\n');
    if (settings.json) {
      fs.writeFileSync(settings.json, JSON.stringify(results, (_k, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v), 2));
    }
    if (settings.profile.api || settings.profile.projector) log(`profiles kept in ${profileDir}`);
  } catch (error) {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    log(`recent process output:\n${stack.recentOutput()}`);
    await cleanup();
    process.exitCode = 1;
  }
}

void main();
