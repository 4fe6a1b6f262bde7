import { comparePositions, type Position, type RecordedEvent, START } from '@svc/infrastructure/event-store/event-store.port';
import { historyTarget } from '@svc/application/history/targets';
import { type Context, UsageError } from '../context';
import { type EventView, renderEvent, viewOf } from './event-view';

/** Per-resource streams no area serves through the API (API keys), tried before the scan of $all. */
const OTHER_CATEGORIES = ['apikey'];

/**
 * Names that live inside an organization's aggregate streams rather than a stream of their own
 * (roles, members and service accounts: `access-<org>`, `organization-<org>`). Their trail is the
 * aggregate's events that mention the name.
 */
const AGGREGATE_HELD = /^(roles|users|service-accounts)\/[^/]+$/;

const SCAN_PAGE = 1000;

export interface AuditTrail {
  org: string;
  resource: string;
  streams: string[];
  events: EventView[];
}

export async function audit(ctx: Context, org: string | undefined, resource: string | undefined): Promise<boolean> {
  if (!org || !resource) throw new UsageError('audit needs <org> <resource-name>, e.g. audit acme notes/disk-full');
  if (!/^[^/]+\/[^/]/.test(resource)) throw new UsageError(`resource name must look like <collection>/<id>, got '${resource}'`);
  const { streams, records } = await findTrail(ctx, org, resource);
  const trail: AuditTrail = { org, resource, streams, events: records.map(viewOf) };
  ctx.print(trail, (t) => {
    if (t.events.length === 0) return `no events for ${t.resource} in organization ${t.org}`;
    const multi = t.streams.length > 1;
    const head = `${t.resource} in ${t.org}: ${t.events.length} event(s) from ${t.streams.join(', ')}`;
    return [head, ...t.events.map((e) => renderEvent(e, { stream: multi }))].join('\n');
  });
  return trail.events.length > 0;
}

async function findTrail(ctx: Context, org: string, resource: string): Promise<{ streams: string[]; records: RecordedEvent[] }> {
  const events = ctx.events();
  if (resource === `organizations/${org}`) {
    const stream = `organization-${org}`;
    return { streams: [stream], records: await events.readStream(stream) };
  }
  if (AGGREGATE_HELD.test(resource)) {
    const streams = [`access-${org}`, `organization-${org}`];
    const records: RecordedEvent[] = [];
    for (const stream of streams) records.push(...(await events.readStream(stream)).filter((r) => mentions(r.data, resource)));
    records.sort((a, b) => comparePositions(a.position, b.position));
    return { streams: [...new Set(records.map((r) => r.streamId))], records };
  }
  // The stream the api's history reads (libs/application/src/history): every area's resources by their spec.
  const target = historyTarget(org, resource);
  const candidates = [...(target ? [target.stream] : []), ...OTHER_CATEGORIES.map((category) => `${category}-${org}:${resource}`)];
  for (const stream of candidates) {
    const records = await events.readStream(stream);
    if (records.length > 0) return { streams: [stream], records };
  }
  // An area not in the list above: find its stream by suffix (slow on a large log, but always right).
  const suffix = `-${org}:${resource}`;
  let after: Position = START;
  for (;;) {
    const page = await events.readAll({ after, maxCount: SCAN_PAGE });
    if (page.length === 0) return { streams: [], records: [] };
    const hit = page.find((r) => r.streamId.endsWith(suffix) && !r.streamId.slice(0, -suffix.length).includes('-'));
    if (hit) return { streams: [hit.streamId], records: await events.readStream(hit.streamId) };
    after = page[page.length - 1].position;
  }
}

/** Whether any string in the payload is exactly `name` (a role in a role set, a member, a role's name). */
function mentions(value: unknown, name: string): boolean {
  if (typeof value === 'string') return value === name;
  if (Array.isArray(value)) return value.some((v) => mentions(v, name));
  if (value && typeof value === 'object') return Object.values(value).some((v) => mentions(v, name));
  return false;
}
