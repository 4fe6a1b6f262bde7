/** The projector writes this meta record every second; the api's health check reads it. */
export const HEARTBEAT_KEY = 'projector:heartbeat';

export interface Heartbeat {
  pid: number;
  at: string;
  projections: string[];
}

/** The CLI asks the running projector to rebuild by writing this meta key; the projector owns the swap. */
export const REBUILD_REQUEST_KEY = 'projector:rebuild-request';

export interface RebuildRequest {
  projection: string;
  requestedAt: string;
  done?: { at: string; events: number; error?: string };
}
