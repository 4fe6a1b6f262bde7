import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { DomainEvent } from '@svc/domain/shared/decider';
import { CommandService, type Handled, type StreamCommand } from '@svc/infrastructure/commands/command-service';
import type { Settings } from '@svc/infrastructure/config/env';
import { SETTINGS } from '@svc/infrastructure/nest/tokens';
import { ProjectionWaiter } from '@svc/infrastructure/projection/waiter';

/**
 * The one write of the command bus, in every process: decide a command on its stream, append the
 * decision, and, when the command names a projection, answer once that projection has caught up with
 * the append (read your writes: the api's routes name one, reactors and the CLI none). Every area and
 * every reactor sends this, whatever its aggregate: the stream command says which stream, which
 * decider, and whether the command starts the stream.
 */
export class DecideAndAppend<S, C, E extends DomainEvent> extends Command<Handled<S>> {
  constructor(
    readonly stream: StreamCommand<S, C, E>,
    /** Projection (checkpoint name) that must reach the append before the command answers; none: answer at once. */
    readonly projection?: string,
  ) {
    super();
  }
}

@CommandHandler(DecideAndAppend)
export class DecideAndAppendHandler implements ICommandHandler<DecideAndAppend<unknown, unknown, DomainEvent>> {
  constructor(
    private readonly commands: CommandService,
    @Inject(ProjectionWaiter) private readonly projections: Pick<ProjectionWaiter, 'waitFor'>,
    @Inject(SETTINGS) private readonly settings: Pick<Settings, 'readWaitMs'>,
  ) {}

  async execute({ stream, projection }: DecideAndAppend<unknown, unknown, DomainEvent>): Promise<Handled<unknown>> {
    const handled = await this.commands.handle(stream);
    // Past the bound the write still stands; the answer carries it, only a following read may lag.
    if (handled.position && projection) await this.projections.waitFor(projection, handled.position, this.settings.readWaitMs);
    return handled;
  }
}
