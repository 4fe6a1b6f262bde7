/**
 * Spec methods nobody has built yet, as docs/api-coverage.md says (`not started` rows), for the tests
 * that check how an unbuilt method answers: they pick one here instead of naming one, so building it
 * does not break them (and they skip the check once every method is built).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SPEC_METHOD_BY_KEY, type SpecMethod } from '@svc/contracts/catalog';

export function notStartedMethods(): SpecMethod[] {
  const coverage = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'api-coverage.md'), 'utf8');
  const methods: SpecMethod[] = [];
  for (const line of coverage.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || cells[3] !== 'not started') continue;
    const method = SPEC_METHOD_BY_KEY.get(cells[1].replace(/`/g, ''));
    if (method) methods.push(method);
  }
  return methods;
}

/**
 * An unbuilt method answered at `POST /<service>/<method>`: one the spec gives that RPC route, or one
 * it gives no path at all (served at its RPC form); undefined when every such method is built.
 */
export const unbuiltRpcMethod = (): SpecMethod | undefined => notStartedMethods().find((m) => m.rpc || !m.rest?.length);

/** An unbuilt REST-only method with a fixed `POST /v1/...` path (no path variable), and that path. */
export function unbuiltRestMethod(): { method: SpecMethod; path: string } | undefined {
  for (const method of notStartedMethods()) {
    const route = method.rpc ? undefined : method.rest?.find((r) => r.startsWith('POST /v1/') && !r.includes('{'));
    if (route) return { method, path: route.slice('POST '.length) };
  }
  return undefined;
}
