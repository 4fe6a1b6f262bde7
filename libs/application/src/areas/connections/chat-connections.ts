import { CHAT_CONNECTION_TYPE, chatDetailsOf } from '@svc/domain/triggers/chat-connection';
import type { Doc, ReadStore } from '@svc/infrastructure/read-store/read-store.port';

/**
 * Where a chat connection's document keeps its workspace id: the operator writes either spelling
 * and the details are kept as written (chat-connection.ts). Indexed across organizations (a
 * webhook delivery names its workspace, not an organization).
 */
export const CHAT_TEAM_PATHS = ['connectionDetails.chat.team_id', 'connectionDetails.chat.teamId'] as const;

/** The chat connections of a workspace, in every organization (at most `limit`), by index. */
export async function chatConnectionsOfTeam(reads: ReadStore, teamId: string, limit: number): Promise<Doc[]> {
  const found = await reads.collection('connections').find(
    { connectionType: CHAT_CONNECTION_TYPE, $or: CHAT_TEAM_PATHS.map((path) => ({ [path]: teamId })) },
    { limit },
  );
  // A document holding both spellings is read as chatDetailsOf reads it.
  return found.filter((doc) => chatDetailsOf(doc).teamId === teamId);
}
