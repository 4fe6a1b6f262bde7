/**
 * Starting a session, written once: CreateSession, Write with a parent, LaunchBacktest and
 * InvokeTrigger (the api) and the trigger reactors (the projector) all come here. Three steps: decide
 * the creation once without appending (bad input claims nothing), claim the session's name for the
 * organization, then start its stream.
 */
import { type SessionEvent, sessionStreamId } from '@svc/contracts/sessions/session.events';
import type { Actor } from '@svc/domain/shared/decider';
import type { JsonObject } from '@svc/domain/shared/json-path';
import type { Resource } from '@svc/domain/shared/resource';
import { type MessagesInput, type SessionCommand, sessionDecider, sessionNameOf, type SessionState } from '@svc/domain/sessions/session.decider';
import type { Handled } from '@svc/infrastructure/commands/command-service';
import { DecideAndAppend } from '../commands/decide-and-append';
import type { CommandSender } from '../commands/command-sender';
import { ClaimSessionName } from './claim-session-name';

/** A command on one session's stream, as the bus carries it; `waitFor` names the projection to wait for (the api's routes). */
export function sessionCommand(
  name: string,
  requestId: string | undefined,
  command: SessionCommand,
  options: { create?: boolean; dryRun?: boolean; causationId?: string; waitFor?: string } = {},
): DecideAndAppend<SessionState, SessionCommand, SessionEvent> {
  const { waitFor, causationId, ...flags } = options;
  return new DecideAndAppend<SessionState, SessionCommand, SessionEvent>(
    {
      decider: sessionDecider,
      streamId: sessionStreamId(command.actor.org, name),
      command,
      context: { actor: command.actor, requestId, ...(causationId ? { causationId } : {}) },
      ...flags,
    },
    waitFor,
  );
}

export interface SessionStart {
  actor: Actor;
  requestId: string | undefined;
  id: string;
  /** The agent (its name) and its resource as the caller read it, for the decider to judge. */
  parent: string;
  agent: Resource | null;
  settings: JsonObject;
  typeHost: string;
  initialMessages?: unknown[];
  write?: MessagesInput;
  /** Projection the creation waits for (read your writes); none for a reactor. */
  waitFor?: string;
}

export async function startSession(bus: CommandSender, start: SessionStart): Promise<Handled<SessionState>> {
  const { actor, requestId, id, parent, waitFor } = start;
  const name = sessionNameOf(parent, id);
  const command: SessionCommand = {
    type: 'CreateSession',
    actor,
    id,
    parent,
    settings: start.settings,
    refs: new Map([[parent, start.agent]]),
    typeHost: start.typeHost,
    initialMessages: start.initialMessages,
    write: start.write,
  };
  await bus.execute(sessionCommand(name, requestId, command, { dryRun: true, waitFor }));
  await bus.execute(new ClaimSessionName(name, actor, requestId));
  return bus.execute(sessionCommand(name, requestId, command, { create: true, waitFor }));
}
