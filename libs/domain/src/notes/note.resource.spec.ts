import type { Actor } from '../shared/decider';
import type { ResourceCommand, ResourceEvent } from '../shared/resource';
import { resourceDecider } from '../shared/resource.decider';
import { givenFor } from '../shared/testing';
import { noteSpec } from './note.resource';

const given = givenFor(resourceDecider(noteSpec));
const NOW = '2024-05-01T10:00:00Z';
const actor: Actor = { org: 'acme', actor: 'users/al', subject: 'users/al', permissions: ['KNOWLEDGE_WRITE'], now: NOW };
const createNote = (id: string, resource: Record<string, unknown>): ResourceCommand => ({ type: 'Create', actor, id, resource });

describe('notes', () => {
  it('creates a note from its settable fields', () => {
    given()
      .when(createNote('n-1', { displayName: 'Disk', notes: 'full', toolName: 'df', toolArgs: { path: '/' }, status: 'x' }))
      .then([
        {
          type: 'NoteCreated',
          data: {
            resource: {
              name: 'notes/n-1',
              displayName: 'Disk',
              notes: 'full',
              toolName: 'df',
              toolArgs: { path: '/' },
              createTime: NOW,
              updateTime: NOW,
            },
          },
        },
      ]);
  });

  it('applies the common ID rule', () => {
    given().when(createNote('-n', {})).thenFails('INVALID_ARGUMENT', /note_id must start with a letter or digit/);
    given().when(createNote('a'.repeat(129), {})).thenFails('INVALID_ARGUMENT');
    given().when(createNote('a'.repeat(128), {})).then([expect.objectContaining({ type: 'NoteCreated' }) as ResourceEvent]);
  });

  it('rejects toolArgs that is not an object', () => {
    given().when(createNote('n', { toolArgs: ['a'] })).thenFails('INVALID_ARGUMENT', /tool_args of note 'notes\/n' must be an object/);
    given().when(createNote('n', { toolArgs: 'a' })).thenFails('INVALID_ARGUMENT');
  });

  it('cannot be undeleted', () => {
    given().when({ type: 'Undelete', actor, name: 'notes/n' }).thenFails('UNIMPLEMENTED');
  });
});
