import { combineProjections } from './combine';
import type { ProjectedEvent, Projection } from './projection';

const part = (name: string, paths: string[]): Projection => ({
  name,
  version: 1,
  collections: [name, 'shared'],
  indexes: { [name]: paths, shared: paths },
  handle: ({ pos }) => [{ op: 'delete', collection: name, id: String(pos) }],
});

describe('combineProjections', () => {
  const combined = combineProjections('both', 3, [part('a', ['x']), part('b', ['x', 'y'])]);

  it('owns every collection of its parts, with their index paths merged', () => {
    expect(combined).toMatchObject({ name: 'both', version: 3, collections: ['a', 'shared', 'b'] });
    expect(combined.indexes).toEqual({ a: ['x'], b: ['x', 'y'], shared: ['x', 'y'] });
  });

  it('hands each event to every part and keeps their operations in part order', () => {
    const ops = combined.handle({ pos: 7 } as ProjectedEvent);
    expect(ops).toEqual([
      { op: 'delete', collection: 'a', id: '7' },
      { op: 'delete', collection: 'b', id: '7' },
    ]);
  });
});
