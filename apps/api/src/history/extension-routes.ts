import type { SpecMethod } from '@svc/contracts/catalog';

/** Our service for resource history, as-of reads and event watches (docs/api-coverage.md, Extensions). */
export const HISTORY_SERVICE = 'svc.history.v1.HistoryService';

/**
 * REST routes of methods the spec does not list, matched before the spec's own (the `{name=**}`
 * forms end in a custom verb no spec route uses). `events:watch` comes before `{name=**}:watch`,
 * which would otherwise take `events` for a resource name.
 */
export const EXTENSION_ROUTES: readonly SpecMethod[] = [
  { part: 1, area: 'history', service: HISTORY_SERVICE, method: 'WatchEvents', rpc: true, rest: ['GET /v1/events:watch'] },
  { part: 1, area: 'history', service: HISTORY_SERVICE, method: 'WatchResource', rpc: true, rest: ['GET /v1/{name=**}:watch'] },
  { part: 1, area: 'history', service: HISTORY_SERVICE, method: 'ListResourceHistory', rpc: true, rest: ['GET /v1/{name=**}:history'] },
  { part: 1, area: 'history', service: HISTORY_SERVICE, method: 'GetResourceAsOf', rpc: true, rest: ['GET /v1/{name=**}:asOf'] },
];
