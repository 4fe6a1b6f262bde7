/**
 * Folds are linear: one property per decider (fold-cost.ts). Each generator writes the histories the
 * aggregate really sees (an organization gaining members and reassigning them, a resource updated
 * again and again, a session's turns), with fresh names, so the collections grow as they do in use.
 */
import fc from 'fast-check';
import { PERMISSIONS } from '@svc/contracts/roles/permissions';
import { SESSION_EVENTS } from '@svc/contracts/sessions/session.events';
import { TRIGGER_OCCASION_EVENTS } from '@svc/contracts/reactors/trigger-occasion.events';
import {
  ARTIFACT_BLOB_RECLAIMED,
  ARTIFACT_UPLOAD_EXPIRED,
  ARTIFACT_UPLOAD_REFERENCED,
  ARTIFACT_UPLOAD_RENEWED,
  ARTIFACT_UPLOADED,
} from '@svc/contracts/investigations/upload.events';
import { SESSION_ARTIFACTS_IMPORTED } from '@svc/contracts/investigations/artifact.events';
import { ROWS_INGESTED } from '@svc/contracts/rows/rows.contract';
import { TRACKER_DELIVERY_RECORDED } from '@svc/contracts/connections/integration-ports.contract';
import { SESSION_NAME_CLAIMED } from '@svc/contracts/sessions/session.events';
import { accessDecider, ADMIN_ROLE, type AccessEvent, type RoleRecord } from '../roles/access.decider';
import { connectionDecider, type Connection } from '../connections/connection.decider';
import { indicatorDecider, type IndicatorEvent } from '../indicators/indicator.decider';
import { INDICATOR_PURGED, RELATION_CREATED, RELATION_DELETED } from '../indicators/indicator.resource';
import { artifactsDecider } from '../investigations/artifacts.decider';
import { uploadsDecider } from '../investigations/uploads.decider';
import { noteSpec } from '../notes/note.resource';
import { apiKeyDecider, organizationDecider } from '../organizations/organization.decider';
import { triggerOccasionsDecider } from '../reactors/trigger-occasions.decider';
import { rowsDecider } from '../rows/rows.decider';
import { trackerDeliveryDecider } from '../connections/tracker-delivery.decider';
import { sessionDecider } from '../sessions/session.decider';
import { sessionNameDecider } from '../sessions/session-name.decider';
import { fold, type DomainEvent } from './decider';
import { expectLinearFold, foldWork } from './fold-cost';
import { resourceDecider } from './resource.decider';
import { uniqueClaimDecider } from './unique-claim';

const T = (i: number) => new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
const pick = <X>(list: readonly X[], i: number): X => list[i % list.length];

describe('the work counter', () => {
  it('counts a spread of a map by its keys, and one in-place update as a few operations', () => {
    const copying = { initialState: () => ({ m: {} as Record<string, number> }), evolve: (s: { m: Record<string, number> }, e: DomainEvent) => ({ m: { ...s.m, [e.type]: 1 } }) };
    const inPlace = { initialState: () => ({ m: {} as Record<string, number> }), evolve: (s: { m: Record<string, number> }, e: DomainEvent) => ((s.m[e.type] = 1), s) };
    const events = (n: number) => Array.from({ length: n }, (_, i) => ({ type: `k${i}`, data: {} }));
    expect(foldWork(copying, events(400))).toBeGreaterThan(10 * foldWork(copying, events(100)));
    expect(foldWork(inPlace, events(400))).toBeLessThanOrEqual(4 * foldWork(inPlace, events(100)) + 10);
  });

  it('counts iterating a Set by its size', () => {
    const copying = { initialState: () => ({ s: new Set<string>() }), evolve: (st: { s: Set<string> }, e: DomainEvent) => ({ s: new Set([...st.s, e.type]) }) };
    const events = (n: number) => Array.from({ length: n }, (_, i) => ({ type: `k${i}`, data: {} }));
    expect(foldWork(copying, events(400))).toBeGreaterThan(10 * foldWork(copying, events(100)));
  });
});

describe('access (access-<org>)', () => {
  type Step =
    | { kind: 'add'; serviceAccount: boolean; role: number; admin: boolean }
    | { kind: 'assign'; member: number; role: number; admin: boolean }
    | { kind: 'createRole'; permission: number }
    | { kind: 'updateRole'; role: number; permission: number }
    | { kind: 'deleteRole'; role: number }
    | { kind: 'setDefault'; role: number };
  const step: fc.Arbitrary<Step> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('add' as const), serviceAccount: fc.boolean(), role: fc.nat(), admin: fc.boolean() }) },
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('assign' as const), member: fc.nat(), role: fc.nat(), admin: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('createRole' as const), permission: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('updateRole' as const), role: fc.nat(), permission: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteRole' as const), role: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('setDefault' as const), role: fc.nat() }) },
  );
  const record = (name: string, permissions: string[], time: string): RoleRecord => ({
    name,
    displayName: name,
    description: '',
    permissions,
    system: name === ADMIN_ROLE,
    isDefault: name === ADMIN_ROLE,
    createTime: time,
    updateTime: time,
  });

  function history(steps: readonly Step[]): AccessEvent[] {
    const events: AccessEvent[] = [{ type: 'AccessInitialized', data: { admin: record(ADMIN_ROLE, [...PERMISSIONS], T(0)) } }];
    const roles = [ADMIN_ROLE];
    const members: Array<{ name: string; roles: string[] }> = [];
    let defaultRole: string = ADMIN_ROLE;
    steps.forEach((s, i) => {
      const rolesOf = (role: number, admin: boolean) => [...new Set([pick(roles, role), ...(admin ? [ADMIN_ROLE] : [])])].sort();
      switch (s.kind) {
        case 'add': {
          const member = { name: `${s.serviceAccount ? 'service-accounts' : 'users'}/m${i}`, roles: rolesOf(s.role, s.admin) };
          members.push(member);
          events.push({ type: 'MemberAdded', data: { member: member.name, roles: member.roles } });
          return;
        }
        case 'assign': {
          if (members.length === 0) return;
          const member = pick(members, s.member);
          const previous = member.roles;
          member.roles = rolesOf(s.role, s.admin);
          events.push({ type: 'RolesAssigned', data: { member: member.name, roles: member.roles, previous } });
          return;
        }
        case 'createRole':
          roles.push(`roles/r${i}`);
          events.push({ type: 'RoleCreated', data: { role: record(`roles/r${i}`, [pick(PERMISSIONS, s.permission)], T(i)) } });
          return;
        case 'updateRole':
          events.push({ type: 'RoleUpdated', data: { name: pick(roles, s.role), set: { permissions: [pick(PERMISSIONS, s.permission)] }, updateTime: T(i) } });
          return;
        case 'deleteRole':
          // Deleted roles stay in the map (their names stay taken): the map keeps growing.
          events.push({ type: 'RoleDeleted', data: { name: pick(roles, s.role), deleteTime: T(i) } });
          return;
        case 'setDefault': {
          const name = pick(roles, s.role);
          events.push({ type: 'DefaultRoleSet', data: { name, previous: defaultRole, updateTime: T(i) } });
          defaultRole = name;
          return;
        }
      }
    });
    return events;
  }

  it('folds N events in O(N): members added and reassigned, roles created, edited, made default', () => {
    expectLinearFold(accessDecider, { step, history });
  });

  it('keeps the Admin-holder count equal to a count over all members', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const events = history(steps);
        const state = events.reduce(accessDecider.evolve, accessDecider.initialState());
        const counted = Object.entries(state.members).filter(([m, roles]) => m.startsWith('users/') && roles.includes(ADMIN_ROLE)).length;
        expect(state.adminUsers).toBe(counted);
      }),
    );
  });
});

describe('the resource kit (one resource per stream)', () => {
  type Step = { kind: 'update'; path: string; unset: boolean; value: string } | { kind: 'delete' } | { kind: 'undelete' };
  const step: fc.Arbitrary<Step> = fc.oneof(
    { weight: 10, arbitrary: fc.record({ kind: fc.constant('update' as const), path: fc.constantFrom('displayName', 'notes', 'description', 'toolName', 'toolArgs.query', 'toolArgs.limit'), unset: fc.boolean(), value: fc.string({ maxLength: 8 }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'delete' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'undelete' as const }) },
  );
  const history = (steps: readonly Step[]): DomainEvent[] => [
    { type: 'NoteCreated', data: { resource: { name: 'notes/n', displayName: 'n', toolArgs: {}, createTime: T(0), updateTime: T(0) } } },
    ...steps.map((s, i): DomainEvent => {
      if (s.kind === 'delete') return { type: 'NoteDeleted', data: { deleteTime: T(i) } };
      if (s.kind === 'undelete') return { type: 'NoteUndeleted', data: { updateTime: T(i) } };
      return { type: 'NoteUpdated', data: { set: s.unset ? {} : { [s.path]: s.value }, unset: s.unset ? [s.path] : [], updateTime: T(i) } };
    }),
  ];

  it('folds Created then N updates in O(N)', () => {
    expectLinearFold(resourceDecider(noteSpec), { step, history });
  });
});

describe('indicator', () => {
  type Step = { kind: 'attach' | 'update' | 'deleteAndUndelete' | 'reportError' };
  const step = fc.constantFrom<Step>({ kind: 'attach' }, { kind: 'attach' }, { kind: 'update' }, { kind: 'reportError' }, { kind: 'deleteAndUndelete' });
  function history(steps: readonly Step[]): DomainEvent[] {
    const events: DomainEvent[] = [{ type: 'IndicatorCreated', data: { resource: { name: 'indicators/i', displayName: 'i', createTime: T(0), updateTime: T(0) } } }];
    const live: string[] = [];
    steps.forEach((s, i) => {
      if (s.kind === 'attach') {
        // An indicator relates to a handful of resources at a time; detached relations stay in the map.
        if (live.length >= 6) events.push({ type: RELATION_DELETED, data: { relation: live.shift(), deleteTime: T(i) } });
        const relation = { name: `indicatorRelations/r${i}`, indicator: 'indicators/i', resource: `issues/x${i}`, createTime: T(i), updateTime: T(i) };
        live.push(relation.name);
        events.push({ type: RELATION_CREATED, data: { relation } });
      } else if (s.kind === 'update') {
        events.push({ type: 'IndicatorUpdated', data: { set: { displayName: `d${i}` }, unset: [], updateTime: T(i), activity: 'Indicator updated.' } });
      } else if (s.kind === 'reportError') {
        events.push({ type: 'IndicatorQueryErrorReported', data: { set: { 'query.status.error': `e${i}` }, unset: [], updateTime: T(i) } });
      } else {
        events.push({ type: 'IndicatorDeleted', data: { deleteTime: T(i), relations: [...live] } });
        events.push({ type: 'IndicatorUndeleted', data: { updateTime: T(i), relations: [...live] } });
      }
    });
    return events;
  }

  it('folds attaches, detaches, updates and delete/undelete in O(N)', () => {
    expectLinearFold(indicatorDecider, { step, history });
  });

  it('a purge empties the relations', () => {
    const events = [...history([{ kind: 'attach' }, { kind: 'attach' }]), { type: INDICATOR_PURGED, data: { purgeTime: T(9), relations: [] } }];
    const state = fold(indicatorDecider, events as IndicatorEvent[]);
    expect(state.relations).toEqual({});
    expect(state.purged).toBe(true);
  });
});

describe('session', () => {
  type Step = { kind: 'write' | 'start' | 'complete' | 'update' };
  const step = fc.constantFrom<Step>({ kind: 'write' }, { kind: 'start' }, { kind: 'complete' }, { kind: 'update' });
  const E = SESSION_EVENTS;
  function history(steps: readonly Step[]): DomainEvent[] {
    const events: DomainEvent[] = [{ type: E.created, data: { resource: { name: 'agents/a/sessions/s', createTime: T(0), updateTime: T(0) } } }];
    const open: string[] = [];
    const started = new Set<string>();
    let length = 0;
    steps.forEach((s, i) => {
      // The runtime works through the turns: a few are queued at a time, the log keeps growing.
      if ((s.kind === 'write' && open.length < 4) || open.length === 0) {
        const turnId = `turn-${length}`;
        events.push({ type: E.messagesWritten, data: { firstOffset: length, messages: [{ text: 'hi' }], writeMode: 'WRITE_MODE_CHECKPOINT', author: 'user', writeTime: T(i) } });
        length += 1;
        events.push({ type: E.turnRequested, data: { turnId, throughOffset: length, requestTime: T(i) } });
        events.push({ type: E.statusChanged, data: { status: 'STATUS_EXECUTING', turnId, changeTime: T(i) } });
        open.push(turnId);
      } else if (s.kind === 'start' && !started.has(open[0])) {
        started.add(open[0]);
        events.push({ type: E.turnStarted, data: { turnId: open[0], startTime: T(i) } });
      } else if (s.kind === 'update') {
        events.push({ type: E.updated, data: { set: { displayName: `s${i}` }, unset: [], updateTime: T(i) } });
      } else {
        const turnId = open.shift() as string;
        events.push({ type: E.turnCompleted, data: { turnId, completeTime: T(i) } });
      }
    });
    return events;
  }

  it('folds a long session (writes, turns started and completed) in O(N)', () => {
    expectLinearFold(sessionDecider, { step, history });
  });
});

describe('organization and API keys', () => {
  it('folds service accounts added in O(N)', () => {
    const step = fc.constantFrom('add', 'add', 'rename');
    expectLinearFold(organizationDecider, {
      step,
      history: (steps) => [
        { type: 'OrganizationCreated', data: { organization: 'organizations/acme', displayName: 'Acme', createTime: T(0) } },
        ...steps.map((s, i) =>
          s === 'add' ? { type: 'ServiceAccountAdded', data: { serviceAccount: `service-accounts/s${i}` } } : { type: 'OrganizationRenamed', data: { displayName: `Acme ${i}`, updateTime: T(i) } },
        ),
      ],
    });
  });

  it('folds an API key rotated and rehashed N times in O(N)', () => {
    expectLinearFold(apiKeyDecider, {
      step: fc.constantFrom('rotate', 'rehash'),
      history: (steps) => [
        { type: 'ApiKeyIssued', data: { keyId: 'k', principal: 'users/a', secretHash: 'h', createTime: T(0) } },
        ...steps.map((s, i) =>
          s === 'rotate'
            ? { type: 'ApiKeyRotated', data: { principal: 'users/a', secretHash: `h${i}`, updateTime: T(i) } }
            : { type: 'ApiKeyRehashed', data: { secretHash: `h${i}`, updateTime: T(i) } },
        ),
      ],
    });
  });
});

describe('uploads (one per organization and sha256)', () => {
  type Step = 'renew' | 'expire' | 'reference';
  it('folds upload, renew, expire and reclaim cycles in O(N)', () => {
    expectLinearFold(uploadsDecider, {
      step: fc.constantFrom<Step>('renew', 'expire', 'reference'),
      history: (steps) => {
        const events: DomainEvent[] = [];
        const reclaim: string[] = [];
        let live = false;
        steps.forEach((s, i) => {
          if (!live) {
            events.push({ type: ARTIFACT_UPLOADED, data: { sha256: 'x', sizeBytes: 1, blobKey: `b${i}`, uploadTime: T(i), expireTime: T(i + 60) } });
            live = true;
            return;
          }
          if (s === 'renew') events.push({ type: ARTIFACT_UPLOAD_RENEWED, data: { expireTime: T(i + 60) } });
          if (s === 'reference') events.push({ type: ARTIFACT_UPLOAD_REFERENCED, data: { by: 'investigations/i', referenceTime: T(i) } });
          if (s === 'expire') {
            events.push({ type: ARTIFACT_UPLOAD_EXPIRED, data: { blobKey: `b${i}`, sizeBytes: 1, expireTime: T(i) } });
            reclaim.push(`b${i}`);
            live = false;
            // The sweep deletes expired bytes soon after: a few keys wait at most.
            if (reclaim.length > 2) events.push({ type: ARTIFACT_BLOB_RECLAIMED, data: { blobKey: reclaim.shift() } });
          }
        });
        return events;
      },
    });
  });
});

describe('trigger occasions', () => {
  it('folds N fires and schedules in O(N)', () => {
    expectLinearFold(triggerOccasionsDecider, {
      step: fc.record({ scheduled: fc.boolean(), late: fc.boolean() }),
      history: (steps) =>
        steps.map(({ scheduled, late }, i) =>
          scheduled
            ? { type: TRIGGER_OCCASION_EVENTS.scheduled, data: { occasion: `post_deploy|d${i}`, source: 'post_deploy', dueTime: T(i + 60), cause: `deployments/d${i}`, scheduleTime: T(i) } }
            : { type: TRIGGER_OCCASION_EVENTS.fired, data: { occasion: `cron|${i}`, source: 'cron', session: `s${i}`, occasionTime: T(late ? i - 30 : i), fireTime: T(i) } },
        ),
    });
  });
});

describe('single-value aggregates', () => {
  const connection = (i: number): Connection => ({ name: 'connections/c', displayName: `c${i}`, description: '', connectionType: 'x', connectionDetails: {}, toolConfigurations: [] });

  it.each<[string, { initialState: () => unknown; evolve: (s: never, e: never) => unknown }, (i: number) => DomainEvent]>([
    ['connection', connectionDecider, (i) => ({ type: i === 0 ? 'ConnectionConfigured' : 'ConnectionReconfigured', data: { connection: connection(i), updateTime: T(i), createTime: T(i) } })],
    ['unique claim', uniqueClaimDecider({ kind: 'CustomerExternalId', label: 'customer external_id', inFlightMs: 30_000 }), (i) => ({ type: 'CustomerExternalIdClaimed', data: { holder: `customers/c${i}`, claimTime: T(i) } })],
    ['artifacts', artifactsDecider, (i) => ({ type: SESSION_ARTIFACTS_IMPORTED, data: { session: 's', source: 'x', artifacts: [], importTime: T(i) } })],
    ['rows', rowsDecider, (i) => ({ type: ROWS_INGESTED, data: { table: 't', rows: [], ingestTime: T(i) } })],
    ['tracker delivery', trackerDeliveryDecider, (i) => ({ type: TRACKER_DELIVERY_RECORDED, data: { connection: 'connections/t', delivery: `d${i}`, kind: 'issues', action: 'opened', project: 'a/b', actor: 'x', receiveTime: T(i) } })],
    ['session name', sessionNameDecider, (i) => ({ type: SESSION_NAME_CLAIMED, data: { org: 'acme', name: 'agents/a/sessions/s', claimTime: T(i) } })],
  ])('%s: folds N events in O(N)', (_name, decider, event) => {
    expectLinearFold(decider as never, { step: fc.nat(), history: (steps) => steps.map((_, i) => event(i)), numRuns: 3 });
  });
});
