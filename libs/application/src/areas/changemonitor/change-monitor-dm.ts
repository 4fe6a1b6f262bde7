/**
 * The seam monitoring plans call (spec part 2, PostPlanComment rule 1): "when the author has linked
 * code-host and chat accounts and enabled change-monitor direct messages, the same update is also
 * sent to the author's chat DM ... best-effort and independent". The author is found by member
 * (`users/{id}`) or by the code-host login their setup links; the DM goes to the destination their
 * last VerifyMyChangeMonitorSlackDM stored. It never throws: the outcome says what happened.
 */
import { CHANGE_MONITOR_SETUPS, setupNameOf } from '@svc/domain/changemonitor/change-monitor-setup.resource';
import { DomainError } from '@svc/domain/shared/domain-error';
import { isPlainObject } from '@svc/domain/shared/json-path';
import { type Chat, ChatError, MAX_CHAT_MESSAGE_CHARS } from '@svc/infrastructure/integrations/chat/chat.port';
import { docId } from '@svc/infrastructure/projection/projection';
import type { Doc, ReadStore } from '@svc/infrastructure/read-store/read-store.port';

export interface ChangeMonitorDmDeps {
  reads: ReadStore;
  /** The chat of a chat connection of `org` (its bot token opened), or null when it has none. */
  chatOf(org: string, connection: string): Promise<Chat | null>;
}

/** Who wrote the pull request: the member, or the code-host login a plan's origin names. */
export interface ChangeMonitorDmAuthor {
  user?: string;
  codehostLogin?: string;
}

export type ChangeMonitorDmOutcome =
  | { sent: true; channel: string; ts: string }
  | { sent: false; reason: 'NOT_LINKED' | 'DISABLED' | 'AMBIGUOUS' | 'UNAVAILABLE'; message: string };

/** Sends `text` (cut at the chat's limit) to the author's verified DM when linked and enabled. */
export async function sendChangeMonitorDm(deps: ChangeMonitorDmDeps, org: string, author: ChangeMonitorDmAuthor, text: string): Promise<ChangeMonitorDmOutcome> {
  try {
    const found = await setupOf(deps.reads, org, author);
    if ('reason' in found) return { sent: false, ...found };
    const setup = found.setup;
    if (setup.chatDmEnabled !== true) return { sent: false, reason: 'DISABLED', message: `${String(setup.user)} has not enabled change-monitor DMs` };
    const destination = setup.verifiedChatDestination;
    if (!isPlainObject(destination) || typeof destination.chatConnection !== 'string' || typeof destination.channelId !== 'string') {
      return { sent: false, reason: 'NOT_LINKED', message: `${String(setup.user)} has no verified chat destination` };
    }
    const chat = await deps.chatOf(org, destination.chatConnection);
    if (!chat) return { sent: false, reason: 'UNAVAILABLE', message: `${destination.chatConnection} has no bot token` };
    const clipped = text.length > MAX_CHAT_MESSAGE_CHARS ? `${text.slice(0, MAX_CHAT_MESSAGE_CHARS - 1)}…` : text;
    const posted = await chat.postMessage({ channel: destination.channelId, text: clipped });
    return { sent: true, channel: posted.channel, ts: posted.ts };
  } catch (error) {
    // Best-effort: the caller's own work (the pull-request comment) goes on whatever happened here.
    if (error instanceof ChatError || error instanceof DomainError) return { sent: false, reason: 'UNAVAILABLE', message: error.message };
    return { sent: false, reason: 'UNAVAILABLE', message: 'the DM could not be sent' };
  }
}

async function setupOf(reads: ReadStore, org: string, author: ChangeMonitorDmAuthor): Promise<{ setup: Doc } | { reason: 'NOT_LINKED' | 'AMBIGUOUS'; message: string }> {
  const setups = reads.collection(CHANGE_MONITOR_SETUPS);
  if (author.user) {
    const setup = await setups.findOne({ _id: docId(org, setupNameOf(author.user)) });
    return setup ? { setup } : { reason: 'NOT_LINKED', message: `${author.user} has no change-monitor setup` };
  }
  if (!author.codehostLogin) return { reason: 'NOT_LINKED', message: 'the author is not known' };
  // Logins are stored lowercased (the code host compares them so); two members claiming one is no one.
  const claimed = await setups.find({ _org: org, codehostLogin: author.codehostLogin.toLowerCase(), deleteTime: { $exists: false } }, { limit: 2 });
  if (claimed.length === 0) return { reason: 'NOT_LINKED', message: `no member linked the code-host login '${author.codehostLogin}'` };
  if (claimed.length > 1) return { reason: 'AMBIGUOUS', message: `several members linked the code-host login '${author.codehostLogin}'; none is sent the DM` };
  return { setup: claimed[0] };
}
