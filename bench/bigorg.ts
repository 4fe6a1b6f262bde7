/**
 * The big-org phase (issue 17, item 3): AssignRoles, a first bearer login (JoinOrganization) and a
 * role's `:history` in an organization of BENCH_BIG_ORG_MEMBERS members (default 10,000) against one
 * of 5 members, on the same stack. Members are seeded by appending MemberAdded events straight to the
 * organization's access stream (as AddMember would, thousands per append): going through 10,000
 * commands would itself take minutes while every command still reads its whole stream.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { SignJWT } from 'jose';
import { SqliteEventStore } from '@svc/infrastructure/event-store/sqlite-event-store';
import type { NewEvent } from '@svc/infrastructure/event-store/event-store.port';
import { BENCH_IDP, BIG_ORGS, type Credentials } from './stack';
import { Samples, summarize, type Summary } from './stats';

const ROLES = '/svc.rbac.v1.RolesService';
const SEED_BATCH = 2000;

export interface BigOrgFigures {
  members: number;
  assignRoles: Summary;
  firstLogin: Summary;
  roleHistory: Summary;
}

export interface BigOrgResult {
  big: BigOrgFigures;
  small: BigOrgFigures;
  seedSeconds: number;
}

/** Appends MemberAdded events until the organization has `members` members (its owner included). */
async function seedMembers(eventsFile: string, org: string, members: number): Promise<void> {
  const events = new SqliteEventStore({ file: eventsFile });
  try {
    const stream = `access-${org}`;
    const now = new Date().toISOString();
    for (let from = 1; from < members; from += SEED_BATCH) {
      const existing = await events.readStream(stream);
      const batch: NewEvent[] = [];
      for (let i = from; i < Math.min(members, from + SEED_BATCH); i++) {
        const correlationId = randomUUID();
        batch.push({
          id: randomUUID(),
          type: 'MemberAdded',
          data: { member: `users/m${i}`, roles: [] },
          metadata: { org, actor: 'service-accounts/bench', subject: 'service-accounts/bench', correlationId, causationId: correlationId, occurredAt: now, schemaVersion: 1 },
        });
      }
      await events.append(stream, batch, existing[existing.length - 1].revision);
    }
  } finally {
    await events.close();
  }
}

async function call(baseUrl: string, method: 'GET' | 'POST', path: string, auth: string, body?: unknown): Promise<{ ms: number; status: number; text: string }> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { ms: performance.now() - t0, status: res.status, text };
}

const basic = (c: Credentials) => `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;

async function bearer(org: string, sub: string): Promise<string> {
  const token = await new SignJWT({ org })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(BENCH_IDP.issuer)
    .setAudience('svc')
    .setSubject(sub)
    .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
    .sign(BENCH_IDP.privateKey);
  return `Bearer ${token}`;
}

/** Sequential requests (one at a time: the figure is each request's own cost, not a queue's). */
async function measure(count: number, one: (i: number) => Promise<{ ms: number; status: number; text: string }>, what: string): Promise<Summary> {
  const samples = new Samples();
  for (let i = 0; i < count; i++) {
    const r = await one(i);
    if (r.status !== 200) throw new Error(`${what} answered ${r.status}: ${r.text.slice(0, 300)}`);
    samples.push(r.ms);
  }
  return summarize(samples);
}

async function figures(baseUrl: string, org: (typeof BIG_ORGS)[number], members: number, samples: number): Promise<BigOrgFigures> {
  const admin = basic(org.admin);
  const created = await call(baseUrl, 'POST', `${ROLES}/CreateRole`, admin, { role_id: 'viewer', role: { display_name: 'Viewer', permissions: [] } });
  if (created.status !== 200 && created.status !== 409) throw new Error(`CreateRole answered ${created.status}: ${created.text.slice(0, 300)}`);
  const assign = (i: number) => call(baseUrl, 'POST', `${ROLES}/AssignRoles`, admin, { user: `users/m${1 + (i % Math.max(1, members - 1))}`, roles: i % 2 ? [] : ['roles/viewer'] });
  // Warm-up: the first commands also wait for the projector to take in the seeded members.
  for (let i = 0; i < 10; i++) await assign(i);
  const assignRoles = await measure(samples, (i) => assign(i + 10), 'AssignRoles');
  const run = Date.now().toString(36);
  const firstLogin = await measure(Math.max(10, Math.round(samples / 4)), async (i) => call(baseUrl, 'GET', '/v1/auth', await bearer(org.org, `new-${run}-${i}`)), 'first bearer login');
  const roleHistory = await measure(Math.max(10, Math.round(samples / 4)), () => call(baseUrl, 'GET', '/v1/roles/viewer:history', admin), 'role history');
  return { members, assignRoles, firstLogin, roleHistory };
}

export async function measureBigOrg(baseUrl: string, eventsFile: string, bigMembers: number, samples: number): Promise<BigOrgResult> {
  const [big, small] = BIG_ORGS;
  const t0 = performance.now();
  await seedMembers(eventsFile, big.org, bigMembers);
  await seedMembers(eventsFile, small.org, 5);
  const seedSeconds = (performance.now() - t0) / 1000;
  // Big first: its warm-up waits for the projector to take in the seeded members, so the small
  // organization's figures are not taken while it still does.
  const bigFigures = await figures(baseUrl, big, bigMembers, samples);
  const smallFigures = await figures(baseUrl, small, 5, samples);
  return { big: bigFigures, small: smallFigures, seedSeconds };
}
