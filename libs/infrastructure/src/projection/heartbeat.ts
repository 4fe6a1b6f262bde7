/** The projector writes this meta record every second; the api's health check reads it. */
export const HEARTBEAT_KEY = 'projector:heartbeat';

export interface Heartbeat {
  pid: number;
  at: string;
  projections: string[];
}
