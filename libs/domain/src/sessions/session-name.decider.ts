/**
 * Session names resolve to one organization (docs/decisions.md, "Sessions"): before a session stream
 * is created, `SessionNameClaimed` {org, name} starts the global stream `sessionowner-<name>`. The
 * stream is appended with expected revision "no stream", so a name any organization holds answers
 * ALREADY_EXISTS; readers (MintAgentSessionToken) find the organization in its first event.
 */
import { SESSION_NAME_CLAIMED, type SessionNameClaimedEvent } from '@svc/contracts/sessions/session.events';
import type { Actor, Decider } from '../shared/decider';
import { alreadyExists } from '../shared/domain-error';

export interface SessionNameState {
  org: string | null;
}

export interface ClaimSessionName {
  type: 'ClaimSessionName';
  actor: Actor;
  name: string;
}

export const sessionNameDecider: Decider<SessionNameState, ClaimSessionName, SessionNameClaimedEvent> = {
  initialState: () => ({ org: null }),
  evolve: (state, event) => (state.org === null ? { org: event.data.org } : state),
  decide(command, state) {
    // Another organization's session is not revealed: the same answer as an existing session of one's own.
    if (state.org !== null) throw alreadyExists(`session '${command.name}' already exists`);
    return [{ type: SESSION_NAME_CLAIMED, data: { org: command.actor.org, name: command.name, claimTime: command.actor.now } }];
  },
};
