/**
 * Spec methods no issue has built yet, read from docs/api-coverage.md (whose statuses the openapi
 * test holds to the served document): the examples the wire and OpenAPI tests use for UNIMPLEMENTED
 * answers, so building a method never leaves a test pointing at it. Undefined once every method of
 * that form is built; the tests that need one are skipped then.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SPEC_METHODS, type SpecMethod } from '@svc/contracts/catalog';

function notStarted(): SpecMethod[] {
  const coverage = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'api-coverage.md'), 'utf8');
  const keys = new Set([...coverage.matchAll(/^\| `([^`]+)` \| .* \| not started \|/gm)].map((m) => m[1]));
  return SPEC_METHODS.filter((m) => keys.has(`${m.service}/${m.method}`) && !m.frozen);
}

/** A method not built yet that has an RPC form. */
export const UNBUILT_RPC: SpecMethod | undefined = notStarted().find((m) => m.rpc);

/** A REST-only method not built yet whose route is a POST to a literal path (no path parameters). */
export const UNBUILT_REST_POST: { method: SpecMethod; path: string } | undefined = notStarted()
  .filter((m) => !m.rpc)
  .flatMap((m) => (m.rest ?? []).filter((r) => r.startsWith('POST /') && !r.includes('{')).map((r) => ({ method: m, path: r.slice('POST '.length) })))[0];
