/**
 * Starting a session, written once: CreateSession, Write with a parent, LaunchBacktest and
 * InvokeTrigger (the api) and the trigger reactors (the projector) all come here. Two commands,
 * built at once (sessionStartCommands, pure) and sent in order by one loop (startSession): claim the
 * session's name for the organization (ClaimSessionName, whose handler is here too: it decides the
 * creation once without appending first, so bad input claims nothing), then start its stream.
 */
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type SessionEvent, sessionOwnerStreamId, sessionStreamId } from '@svc/contracts/sessions/session.events';
import type { Actor } from '@svc/domain/shared/decider';
import type { JsonObject } from '@svc/domain/shared/json-path';
import type { Resource } from '@svc/domain/shared/resource';
import { type MessagesInput, type SessionCommand, sessionDecider, type SessionState } from '@svc/domain/sessions/session.decider';
import { sessionNameDecider } from '@svc/domain/sessions/session-name.decider';
import { CommandService, type Handled, type StreamCommand } from '@svc/infrastructure/commands/command-service';
import { DecideAndAppend } from '../commands/decide-and-append';

export interface SessionStart {
  actor: Actor;
  requestId: string | undefined;
  id: string;
  /** Its name, `sessionNameOf(parent, id)`: the caller has it already (it names the session it asks for). */
  name: string;
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
type CreationStream = StreamCommand<SessionState, SessionCommand, SessionEvent>;

/** The two commands that start a session, in the order they must be sent: the name claim (with the creation's check), then the creation. */
export function sessionStartCommands(start: SessionStart): readonly [ClaimSessionName, SessionCreation] {
  const { actor, requestId, id, name, parent, waitFor } = start;
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
  // One stream command: checked by the claim (dry run), then starting the stream (create).
  const creation: CreationStream = { decider: sessionDecider, streamId: sessionStreamId(actor.org, name), command, context: { actor, requestId } };
  return [new ClaimSessionName(name, creation), new DecideAndAppend({ ...creation, create: true }, waitFor)];
}

/** What it sends through: a CommandSender (named structurally: command-sender.ts imports this file's handler). */
type Sender = { execute<R>(command: Command<R>): Promise<R> };

/** Starts a session: the claim, answered before the creation; the answer is the creation's. */
export async function startSession(bus: Sender, start: SessionStart): Promise<Handled<SessionState>> {
  const [claim, create] = sessionStartCommands(start);
  await bus.execute(claim);
  return bus.execute(create);
}

/**
 * Claims a session name for the caller's organization in the global `sessionowner-<name>` stream
 * (expected revision "no stream"), before the session stream is created: first the creation is
 * decided on its stream without appending (a dry run), so a creation its decider refuses claims
 * nothing. No read model serves the claim, so nothing waits for a projection; a retried request_id
 * finds its own claim (and the dry run, its own creation).
 */
export class ClaimSessionName extends Command<void> {
  constructor(
    readonly name: string,
    /** The creation the name is claimed for (its actor and request id are the claim's). */
    readonly creation: CreationStream,
  ) {
    super();
  }
}

@CommandHandler(ClaimSessionName)
export class ClaimSessionNameHandler implements ICommandHandler<ClaimSessionName> {
  constructor(private readonly commands: CommandService) {}

  async execute({ name, creation }: ClaimSessionName): Promise<void> {
    await this.commands.handle({ ...creation, dryRun: true });
    const { actor, requestId } = creation.context;
    await this.commands.handle({
      decider: sessionNameDecider,
      streamId: sessionOwnerStreamId(name),
      command: { type: 'ClaimSessionName', actor, name },
      context: { actor, requestId },
      create: true,
    });
  }
}
