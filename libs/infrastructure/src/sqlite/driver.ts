import type Database from 'better-sqlite3';

/**
 * The one place that loads better-sqlite3; every SQLite file (stores, notification bus, WAL
 * checkpoint worker, tests) is opened through it. No one version of the driver serves every Node we
 * run: 12 (a V8 addon, built from source on install) aborts on Node 24 when a statement is freed,
 * 13 (Node-API, binaries shipped in the package) crashes on Node 20. package.json installs 13 as the
 * optional alias `better-sqlite3-napi`, which npm skips on Node 20 (its engines say >=22). Both have
 * the API of `@types/better-sqlite3`. docs/decisions.md, "Node 20, 22 and 24 (issue 19, item 6)".
 */
export const SQLITE_DRIVERS = { v8: 'better-sqlite3', napi: 'better-sqlite3-napi' } as const;

/**
 * The first Node major that gets the Node-API driver: the first where 12 fails. Both run on Node 22,
 * where 12 stays (what the Node 22 image ran before): 13 took about twice as long to prepare a
 * statement and 1.2x to insert there (docs/performance.md).
 */
const NAPI_FROM_NODE_MAJOR = 24;

export function sqliteDriverFor(nodeVersion: string): string {
  const major = Number(nodeVersion.split('.')[0]);
  return major >= NAPI_FROM_NODE_MAJOR ? SQLITE_DRIVERS.napi : SQLITE_DRIVERS.v8;
}

/** The driver this process uses. */
export const SQLITE_DRIVER = sqliteDriverFor(process.versions.node);

let loaded: typeof Database | undefined;

/** The driver's constructor, loaded on first use (a process on EventStoreDB and MongoDB never loads it). */
export function sqliteDriver(): typeof Database {
  // A cast, not a check: the alias is the same library, typed by @types/better-sqlite3.
  return (loaded ??= requireDriver(SQLITE_DRIVER, require) as typeof Database);
}

/** The driver's resolved entry file, for code that loads it elsewhere (a worker thread, a child process). */
export function sqliteDriverPath(): string {
  return resolveDriver(SQLITE_DRIVER, require.resolve);
}

export function openSqlite(file: string, options?: Database.Options): Database.Database {
  const Driver = sqliteDriver();
  return new Driver(file, options);
}

export function requireDriver(name: string, load: (id: string) => unknown): unknown {
  try {
    return load(name);
  } catch (error) {
    throw missing(name, error);
  }
}

function resolveDriver(name: string, resolve: (id: string) => string): string {
  try {
    return resolve(name);
  } catch (error) {
    throw missing(name, error);
  }
}

/** One clear error when the package itself is absent (installed under another Node); others pass through. */
function missing(name: string, error: unknown): unknown {
  const e = error as { code?: unknown; message?: unknown };
  if (e?.code !== 'MODULE_NOT_FOUND' || !String(e.message).includes(`'${name}'`)) return error;
  return new Error(
    `SQLite driver '${name}' is not installed, and Node ${process.versions.node} needs it ` +
      `(better-sqlite3 ${name === SQLITE_DRIVERS.napi ? '13, for Node 24 and later' : '12, for Node 20 and 22'}). ` +
      'Dependencies were installed under another Node version, or without optional ones: run `npm ci` with this Node.',
  );
}
