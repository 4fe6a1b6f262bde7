import { CHAT_CONNECTION_TYPE } from '@svc/domain/triggers/chat-connection';
import type { Doc, ReadStore } from '@svc/infrastructure/read-store/read-store.port';

/** Most chat connections one workspace is looked up in (ours): bounds what one call reads. */
export const MAX_WORKSPACE_CONNECTIONS = 100;

/**
 * The chat connections, of any organization, that belong to workspace `teamId`. Details are kept as
 * the operator wrote them (chat-connection.ts), so both spellings of the key are matched.
 */
export function chatConnectionsOfWorkspace(reads: ReadStore, teamId: string): Promise<Doc[]> {
  return reads.collection('connections').find(
    {
      connectionType: CHAT_CONNECTION_TYPE,
      $or: [{ 'connectionDetails.chat.team_id': teamId }, { 'connectionDetails.chat.teamId': teamId }],
    },
    { limit: MAX_WORKSPACE_CONNECTIONS },
  );
}
