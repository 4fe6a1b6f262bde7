import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { sessionOwnerStreamId } from '@svc/contracts/sessions/session.events';
import type { Actor } from '@svc/domain/shared/decider';
import { sessionNameDecider } from '@svc/domain/sessions/session-name.decider';
import { CommandService } from '@svc/infrastructure/commands/command-service';

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
