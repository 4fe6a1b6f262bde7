import type { Doc, ReadStore } from '@svc/infrastructure/read-store/read-store.port';

/** CONNECTION_TYPE_TRACKER (libs/domain/src/connections/connection-types.ts). */
const TRACKER_CONNECTION_TYPE = 'CONNECTION_TYPE_TRACKER';

/**
 * Where a tracker connection's document keeps its project (the same word in either spelling).
 * Indexed across organizations: a webhook delivery names its repository, not an organization.
 */
export const TRACKER_PROJECT_PATH = 'connectionDetails.tracker.repository';

/** The tracker connections of a project (`owner/repo`), in every organization (at most `limit`), by index. */
export function trackerConnectionsOfProject(reads: ReadStore, project: string, limit: number): Promise<Doc[]> {
  return reads.collection('connections').find({ connectionType: TRACKER_CONNECTION_TYPE, [TRACKER_PROJECT_PATH]: project }, { limit });
}
