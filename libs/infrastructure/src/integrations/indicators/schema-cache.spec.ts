import { DEFAULT_TOOL_LIMITS, type DatabaseSchema, type SchemaReader, type ToolConnection, ToolError } from '../tools/tool-adapter.port';
import { CachedSchemaReader } from './schema-cache';

const connection: ToolConnection = { name: 'connections/warehouse', type: 'CONNECTION_TYPE_SQLDB', details: { host: 'db', port: 5432, database: 'analytics', username: 'svc', password: 'hunter2' } };
const schema: DatabaseSchema = { tables: [{ name: 'public.requests', columns: [{ name: 'ts', type: 'timestamp with time zone' }] }] };
const context = { limits: DEFAULT_TOOL_LIMITS };

/** A reader that answers from a script: a schema, an error, or a wait. */
function scripted() {
  const calls: string[] = [];
  let next: () => Promise<DatabaseSchema> = async () => schema;
  const reader: SchemaReader = {
    schemaOf: (c) => {
      calls.push(c.name);
      return next();
    },
  };
  return { reader, calls, answer: (fn: () => Promise<DatabaseSchema>) => (next = fn) };
}

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe('the schema cache in front of a SchemaReader', () => {
  it('uses a fresh schema without asking the database, and reads again once the TTL has passed', async () => {
    let now = 0;
    const db = scripted();
    const cache = new CachedSchemaReader(db.reader, { ttlMs: 1_000, now: () => now });
    expect(await cache.schemaOf(connection, context, 'acme')).toBe(schema);
    now = 999;
    expect(await cache.schemaOf(connection, context, 'acme')).toBe(schema);
    expect(db.calls).toHaveLength(1);
    now = 1_000;
    await cache.schemaOf(connection, context, 'acme');
    expect(db.calls).toHaveLength(2);
    // Another organization's connection of the same ID is another entry.
    await cache.schemaOf(connection, context, 'globex');
    expect(db.calls).toHaveLength(3);
  });

  it('a database that cannot be read answers UNAVAILABLE naming the connection (never a credential), while a fresh cached schema still serves', async () => {
    let now = 0;
    const db = scripted();
    const cache = new CachedSchemaReader(db.reader, { ttlMs: 1_000, now: () => now });
    await cache.schemaOf(connection, context);
    db.answer(() => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:5432 password=hunter2'), { code: 'ECONNREFUSED' })));
    now = 500;
    expect(await cache.schemaOf(connection, context)).toBe(schema);
    now = 1_500;
    const error = await failure(cache.schemaOf(connection, context));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toBe('the schema of connections/warehouse could not be read: the database could not be reached (ECONNREFUSED)');
    expect(error.message).not.toContain('hunter2');
    // A stale schema is not used: the next call asks again (and fails again).
    await failure(cache.schemaOf(connection, context));
    expect(db.calls).toHaveLength(3);
  });

  it('a read past its time cap is UNAVAILABLE; concurrent reads share one request', async () => {
    const db = scripted();
    const cache = new CachedSchemaReader(db.reader, { timeoutMs: 50 });
    db.answer(() => new Promise(() => undefined));
    const error = await failure(cache.schemaOf(connection, context));
    expect(error.message).toMatch(/connections\/warehouse took longer than 50 ms/);
    let release: (s: DatabaseSchema) => void = () => undefined;
    db.answer(() => new Promise((resolve) => (release = resolve)));
    const both = Promise.all([cache.schemaOf(connection, context), cache.schemaOf(connection, context)]);
    release(schema);
    expect(await both).toEqual([schema, schema]);
    expect(db.calls).toHaveLength(2);
  });

  it('bounds what it holds: the least recently used connection goes first, and an oversized catalog is refused', async () => {
    const db = scripted();
    const cache = new CachedSchemaReader(db.reader, { maxEntries: 2, maxColumns: 3 });
    const named = (id: string): ToolConnection => ({ ...connection, name: `connections/${id}` });
    await cache.schemaOf(named('a'), context);
    await cache.schemaOf(named('b'), context);
    await cache.schemaOf(named('a'), context);
    await cache.schemaOf(named('c'), context);
    await cache.schemaOf(named('a'), context);
    expect(db.calls).toEqual(['connections/a', 'connections/b', 'connections/c']);
    await cache.schemaOf(named('b'), context);
    expect(db.calls).toHaveLength(4);
    db.answer(async () => ({ tables: [{ name: 't', columns: ['a', 'b', 'c', 'd'].map((n) => ({ name: n, type: 'int' })) }] }));
    const error = await failure(cache.schemaOf(named('wide'), context));
    expect(error.code).toBe('FAILED_PRECONDITION');
    expect(error.message).toMatch(/connections\/wide has 4 columns, more than the 3 .*details\.sqldb\.schema/);
  });
});
