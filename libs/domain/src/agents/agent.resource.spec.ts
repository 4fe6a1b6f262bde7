import type { Actor } from '../shared/decider';
import type { References, Resource, ResourceCommand, ResourceEvent, UpdateScope } from '../shared/resource';
import { resourceDecider } from '../shared/resource.decider';
import { given } from '../shared/testing';
import { agentSpec } from './agent.resource';

const agents = resourceDecider(agentSpec);
const T0 = '2024-05-01T10:00:00Z';
const T1 = '2024-05-02T10:00:00Z';
const actorAt = (now: string): Actor => ({ org: 'acme', actor: 'service-accounts/ci', subject: 'users/al', permissions: ['AGENTS_WRITE'], now });

const warehouse: Resource = { name: 'connections/warehouse', connectionType: 'CONNECTION_TYPE_SQLDB' };
const metrics: Resource = { name: 'connections/metrics', connectionType: 'CONNECTION_TYPE_PROMETHEUS' };
const triage: Resource = { name: 'tags/triage' };
const refsOf = (...resources: Resource[]): References => new Map(resources.map((r) => [r.name, r]));
const known = refsOf(warehouse, metrics, triage);

const create = (resource: Record<string, unknown>, refs: References = known, id = 'a1'): ResourceCommand => ({
  type: 'Create',
  actor: actorAt(T0),
  id,
  resource,
  refs,
});
const update = (resource: Record<string, unknown>, scope: UpdateScope, refs: References = known): ResourceCommand => ({
  type: 'Update',
  actor: actorAt(T1),
  name: 'agents/a1',
  resource,
  scope,
  refs,
});

const a1: Resource = {
  name: 'agents/a1',
  title: 'Warehouse watcher',
  state: 'AGENT_STATE_ON',
  connections: [{ name: 'connections/warehouse', enabledTools: ['TOOL_SQLDB_QUERY'] }],
  tags: ['tags/triage'],
  createdBy: 'users/al',
  createTime: T0,
  updateTime: T0,
};
const created: ResourceEvent = { type: 'AgentCreated', data: { resource: a1 } };

describe('agents', () => {
  it('creates an agent: state defaults to ON, createdBy is the acting subject (not the client)', () => {
    given(agents)
      .when(
        create({
          title: 'Warehouse watcher',
          connections: [{ name: 'connections/warehouse', enabledTools: ['TOOL_SQLDB_QUERY'] }],
          tags: ['tags/triage'],
          createdBy: 'users/mallory',
        }),
      )
      .then([created]);
  });

  it('applies the agent_id rule', () => {
    for (const id of ['-a', '_a', 'a:b', 'a.b', 'a'.repeat(129)]) {
      given(agents).when(create({}, known, id)).thenFails('INVALID_ARGUMENT', /agent_id must start with a letter or digit/);
    }
    given(agents).when(create({}, known, '9_a-B')).then([expect.objectContaining({ type: 'AgentCreated' }) as ResourceEvent]);
  });

  it('state must be AGENT_STATE_ON or AGENT_STATE_OFF, and cannot be cleared', () => {
    given(agents).when(create({ state: 'AGENT_STATE_OFF' })).thenState((state) => expect(state.resource?.state).toBe('AGENT_STATE_OFF'));
    for (const state of ['AGENT_STATE_UNSPECIFIED', 'on', 'PAUSED']) {
      given(agents).when(create({ state })).thenFails('INVALID_ARGUMENT', /state of agent 'agents\/a1' must be AGENT_STATE_ON or AGENT_STATE_OFF/);
    }
    given(agents, [created]).when(update({}, { paths: ['state'] })).thenFails('INVALID_ARGUMENT', /state/);
    given(agents, [created])
      .when(update({ state: 'AGENT_STATE_OFF' }, { paths: ['state'] }))
      .then([{ type: 'AgentUpdated', data: { set: { state: 'AGENT_STATE_OFF' }, unset: [], updateTime: T1 } }]);
  });

  it('tags must be existing, live tags named tags/{id}, each once', () => {
    given(agents).when(create({ tags: ['tags/nope'] })).thenFails('INVALID_ARGUMENT', /refers to 'tags\/nope', which does not exist/);
    const deletedTag = refsOf({ name: 'tags/old', deleteTime: T0 });
    given(agents).when(create({ tags: ['tags/old'] }, deletedTag)).thenFails('INVALID_ARGUMENT', /tags\/old/);
    given(agents).when(create({ tags: ['triage'] })).thenFails('INVALID_ARGUMENT', /tags\[0\] must look like 'tags\/\{tag_id\}'/);
    // A name of another collection is not a tag, even though it exists.
    given(agents).when(create({ tags: ['connections/warehouse'] })).thenFails('INVALID_ARGUMENT', /tags\[0\] must look like/);
    given(agents).when(create({ tags: ['tags/triage', 'tags/triage'] })).thenFails('INVALID_ARGUMENT', /tags\[1\]: 'tags\/triage' is listed twice/);
  });

  it('connections must exist and enable only tools their type offers', () => {
    given(agents)
      .when(create({ connections: [{ name: 'connections/warehouse', enabledTools: ['TOOL_PROMQL_QUERY'] }] }))
      .thenFails('INVALID_ARGUMENT', /'TOOL_PROMQL_QUERY' is not a tool of connections\/warehouse \(CONNECTION_TYPE_SQLDB\)/);
    given(agents)
      .when(create({ connections: [{ name: 'connections/ledger', enabledTools: [] }] }))
      .thenFails('INVALID_ARGUMENT', /refers to 'connections\/ledger', which does not exist/);
    given(agents)
      .when(create({ connections: [{ name: 'warehouse' }] }))
      .thenFails('INVALID_ARGUMENT', /connections\[0\]\.name must look like 'connections\/\{connection_id\}'/);
    given(agents)
      .when(create({ connections: [{ name: 'connections/metrics', enabledTools: ['TOOL_PROMQL_QUERY', 'TOOL_PROMQL_QUERY_RANGE'] }] }))
      .then([expect.objectContaining({ type: 'AgentCreated' }) as ResourceEvent]);
  });

  it('an update keeps references it does not change, even when they have since gone', () => {
    // tags/triage was deleted since: renaming the agent still works, re-adding a missing tag does not.
    given(agents, [created])
      .when(update({ title: 'Renamed' }, { paths: ['title'] }, refsOf(warehouse)))
      .then([{ type: 'AgentUpdated', data: { set: { title: 'Renamed' }, unset: [], updateTime: T1 } }]);
    given(agents, [created])
      .when(update({ tags: ['tags/triage', 'tags/new'] }, { paths: ['tags'] }, refsOf(warehouse, triage)))
      .thenFails('INVALID_ARGUMENT', /tags\/new/);
  });

  it('createdBy is output only: an update cannot change it', () => {
    given(agents, [created]).when(update({ createdBy: 'users/mallory' }, 'all-provided')).thenNothing();
    given(agents, [created]).when(update({ createdBy: 'users/mallory' }, { paths: ['createdBy'] })).thenNothing();
  });

  it('can be deleted and undeleted', () => {
    const deleted: ResourceEvent = { type: 'AgentDeleted', data: { deleteTime: T1 } };
    given(agents, [created]).when({ type: 'Delete', actor: actorAt(T1), name: 'agents/a1' }).then([deleted]);
    given(agents, [created, deleted])
      .when({ type: 'Undelete', actor: actorAt(T1), name: 'agents/a1' })
      .then([{ type: 'AgentUndeleted', data: { updateTime: T1 } }]);
  });
});
