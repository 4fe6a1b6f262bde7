/**
 * Starting a session, written once: CreateSession, Write with a parent, LaunchBacktest and
 * InvokeTrigger (the api) and the trigger reactors (the projector) all come here. Three commands,
 * built at once (sessionStartCommands, pure) and sent in order by one loop (startSession): decide the
 * creation once without appending (bad input claims nothing), claim the session's name for the
 * organization (ClaimSessionName, whose handler is here too), then start its stream.
 */
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type SessionEvent, sessionOwnerStreamId, sessionStreamId } from '@svc/contracts/sessions/session.events';
import type { Actor } from '@svc/domain/shared/decider';
import type { JsonObject } from '@svc/domain/shared/json-path';
import type { Resource } from '@svc/domain/shared/resource';
import { type MessagesInput, type SessionCommand, sessionDecider, sessionNameOf, type SessionState } from '@svc/domain/sessions/session.decider';
import { sessionNameDecider } from '@svc/domain/sessions/session-name.decider';
import { CommandService, type Handled } from '@svc/infrastructure/commands/command-service';
import { DecideAndAppend } from '../commands/decide-and-append';

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

type SessionCreation = DecideAndAppend<SessionState, SessionCommand, SessionEvent>;

/** The three commands that start a session, in the order they must be sent. */
export function sessionStartCommands(start: SessionStart): readonly [SessionCreation, ClaimSessionName, SessionCreation] {
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
  // One stream command, checked first (dryRun), then starting the stream (create).
  const stream: SessionCreation['stream'] = { decider: sessionDecider, streamId: sessionStreamId(actor.org, name), command, context: { actor, requestId } };
  return [new DecideAndAppend({ ...stream, dryRun: true }, waitFor), new ClaimSessionName(name, actor, requestId), new DecideAndAppend({ ...stream, create: true }, waitFor)];
}

/** Starts a session: its commands, each answered before the next; the answer is the creation's. */
/** What it sends through: a CommandSender (named structurally: command-sender.ts imports this file's handler). */
type Sender = { execute<R>(command: Command<R>): Promise<R> };

export async function startSession(bus: Sender, start: SessionStart): Promise<Handled<SessionState>> {
  const [check, claim, create] = sessionStartCommands(start);
  for (const command of [check, claim]) await bus.execute<unknown>(command);
  return bus.execute(create);
}

/**
 * Claims a session name for the caller's organization in the global `sessionowner-<name>` stream
 * (expected revision "no stream"), before the session stream is created. No read model serves the
 * claim, so nothing waits for a projection; a retried request_id finds its own claim.
 */
export class ClaimSessionName extends Command<void> {
  constructor(
    readonly name: string,
    readonly actor: Actor,
    readonly requestId: string | undefined,
  ) {
    super();
  }
}

@CommandHandler(ClaimSessionName)
export class ClaimSessionNameHandler implements ICommandHandler<ClaimSessionName> {
  constructor(private readonly commands: CommandService) {}

  async execute({ name, actor, requestId }: ClaimSessionName): Promise<void> {
    await this.commands.handle({
      decider: sessionNameDecider,
      streamId: sessionOwnerStreamId(name),
      command: { type: 'ClaimSessionName', actor, name },
      context: { actor, requestId },
      create: true,
    });
  }
}
