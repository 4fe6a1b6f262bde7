import type { Actor } from '../shared/decider';
import type { Resource, ResourceCommand, ResourceEvent } from '../shared/resource';
import { resourceDecider } from '../shared/resource.decider';
import { givenFor } from '../shared/testing';
import { runbookSpec } from './runbook.resource';

const given = givenFor(resourceDecider(runbookSpec));
const T0 = '2024-05-01T10:00:00Z';
const actor: Actor = { org: 'acme', actor: 'users/al', subject: 'users/al', permissions: ['KNOWLEDGE_WRITE'], now: T0 };
const warehouse: Resource = { name: 'connections/warehouse', connectionType: 'CONNECTION_TYPE_SQLDB' };
const refs = new Map<string, Resource | null>([
  ['connections/warehouse', warehouse],
  ['connections/gone', null],
]);
const createRunbook = (connections: unknown): ResourceCommand => ({
  type: 'Create',
  actor,
  id: 'rb-1',
  resource: { displayName: 'Restart', text: 'Steps', connections },
  refs,
});

describe('runbooks', () => {
  it('names the bound connections as references, so the API looks them up before deciding', () => {
    expect(runbookSpec.references?.({ connections: [{ name: 'connections/a' }, { name: 'connections/b' }] })).toEqual(['connections/a', 'connections/b']);
  });

  it('binds existing connections with tools their type offers', () => {
    given().when(createRunbook([{ name: 'connections/warehouse', enabledTools: ['TOOL_SQLDB_QUERY'] }])).then([
      expect.objectContaining({ type: 'RunbookCreated' }) as ResourceEvent,
    ]);
  });

  it('refuses a missing connection, a foreign tool, and a connection bound twice', () => {
    given().when(createRunbook([{ name: 'connections/gone' }])).thenFails('INVALID_ARGUMENT', /refers to 'connections\/gone', which does not exist/);
    given()
      .when(createRunbook([{ name: 'connections/warehouse', enabledTools: ['TOOL_PROMQL_QUERY'] }]))
      .thenFails('INVALID_ARGUMENT', /'TOOL_PROMQL_QUERY' is not a tool of connections\/warehouse/);
    given()
      .when(createRunbook([{ name: 'connections/warehouse' }, { name: 'connections/warehouse' }]))
      .thenFails('INVALID_ARGUMENT', /bound twice/);
  });

  it('refuses a tool enabled twice on one binding, but not one an update leaves as it was', () => {
    given()
      .when(createRunbook([{ name: 'connections/warehouse', enabledTools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_QUERY'] }]))
      .thenFails('INVALID_ARGUMENT', /connections\[0\]\.enabled_tools: 'TOOL_SQLDB_QUERY' is listed twice/);
    // Stored before the rule existed: an update that does not touch the binding still works.
    const stored: ResourceEvent = {
      type: 'RunbookCreated',
      data: {
        resource: {
          name: 'runbooks/rb-1',
          connections: [{ name: 'connections/warehouse', enabledTools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_QUERY'] }],
          createTime: T0,
          updateTime: T0,
        },
      },
    };
    given([stored])
      .when({ type: 'Update', actor, name: 'runbooks/rb-1', resource: { text: 'New steps' }, scope: { paths: ['text'] }, refs })
      .then([{ type: 'RunbookUpdated', data: { set: { text: 'New steps' }, unset: [], updateTime: T0 } }]);
  });
});
