/**
 * A member's change-monitor notification setup (spec part 2, "the personal change-monitor
 * notification setup record", fields not shown; ours in docs/decisions.md, "Change-monitor
 * notifications"): one per member of an organization, `change-monitor-setups/{user_id}`, written
 * only by its member through the change-monitor notifications service (the kit's Put, one event per
 * command). It links the member's code-host login (how a plan's pull-request author is found) and
 * their chat account, and says whether plan updates are also sent to them as a chat DM.
 *
 * Rules: DMs can be enabled only once a destination was verified (a test DM reached it); the
 * verified destination is what VerifyMyChangeMonitorSlackDM stored, never a caller's claim.
 */
import { failedPrecondition, invalid } from '../shared/domain-error';
import { isPlainObject } from '../shared/json-path';
import type { ResourceSpec } from '../shared/resource';

/** A GitHub login: letters, digits and single hyphens, at most 39 characters (linear, no backtracking). */
const CODEHOST_LOGIN = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/;
const CONNECTION_NAME = /^connections\/[^/]+$/;
const PLATFORM_ID = /^[A-Z0-9]{1,32}$/;

export const CHANGE_MONITOR_SETUPS = 'change-monitor-setups';

/** The member a setup belongs to: `users/{id}` answers `change-monitor-setups/{id}`; others have none. */
export function setupNameOf(subject: string): string {
  const match = /^users\/([^/]+)$/.exec(subject);
  if (!match) throw failedPrecondition(`only a member (users/…) has a change-monitor setup; '${subject}' is not one`);
  return `${CHANGE_MONITOR_SETUPS}/${match[1]}`;
}

export const changeMonitorSetupSpec: ResourceSpec = {
  kind: 'ChangeMonitorSetup',
  collection: CHANGE_MONITOR_SETUPS,
  idRequired: true,
  // The member's own ID (configuration member IDs).
  idPattern: /^[a-zA-Z0-9][a-zA-Z0-9._@-]{0,127}$/,
  idRule: 'the ID of the member the setup belongs to',
  settable: ['user', 'chatDmEnabled', 'codehostLogin', 'verifiedChatDestination'],
  defaults: { chatDmEnabled: false },
  undeletable: false,
  validate(setup) {
    if (typeof setup.user !== 'string' || `${CHANGE_MONITOR_SETUPS}/${setup.user.replace(/^users\//, '')}` !== setup.name) {
      throw invalid(`user must be the member the setup ${setup.name} belongs to`);
    }
    if (typeof setup.chatDmEnabled !== 'boolean') throw invalid('chat_dm_enabled must be a boolean');
    if (setup.codehostLogin !== undefined && (typeof setup.codehostLogin !== 'string' || !CODEHOST_LOGIN.test(setup.codehostLogin))) {
      throw invalid(`codehost_login must be a code-host login (letters, digits, hyphens; at most 39 characters), got '${String(setup.codehostLogin).slice(0, 64)}'`);
    }
    const destination = setup.verifiedChatDestination;
    if (destination !== undefined) {
      const ok =
        isPlainObject(destination) &&
        typeof destination.chatConnection === 'string' &&
        CONNECTION_NAME.test(destination.chatConnection) &&
        typeof destination.chatUserId === 'string' &&
        PLATFORM_ID.test(destination.chatUserId) &&
        typeof destination.channelId === 'string' &&
        PLATFORM_ID.test(destination.channelId) &&
        typeof destination.verifyTime === 'string';
      if (!ok) throw invalid('verified_chat_destination must hold chat_connection, chat_user_id, channel_id and verify_time');
    }
    if (setup.chatDmEnabled && destination === undefined) {
      throw failedPrecondition('chat DMs can be enabled only after a test DM reached you: call VerifyMyChangeMonitorSlackDM first', 'CHAT_DM_NOT_VERIFIED');
    }
  },
};

/** The setup of a member who never wrote one: DMs off, nothing linked. */
export function defaultSetup(name: string, user: string): Record<string, unknown> {
  return { name, user, chatDmEnabled: false };
}
