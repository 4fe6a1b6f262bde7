import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { DomainEvent } from '@svc/domain/shared/decider';
import { CommandExecutor, type Execution, type ExecuteOptions } from '@svc/infrastructure/commands/command-executor';
import type { Settings } from '@svc/infrastructure/config/env';
import { SETTINGS } from '@svc/infrastructure/nest/tokens';
import { ProjectionWaiter } from '@svc/infrastructure/projection/waiter';

/**
 * Runs a decider against its stream (load, decide, append with retries) and answers once the
 * projection serving the resource has caught up with the append, so the caller reads its write.
 */
export class ExecuteCommand<S, C, E extends DomainEvent> extends Command<Execution<S>> {
  constructor(
    readonly options: ExecuteOptions<S, C, E>,
    /** Projection (checkpoint name) that must reach the append before the command answers. */
    readonly projection: string,
  ) {
    super();
  }
}

@CommandHandler(ExecuteCommand)
export class ExecuteCommandHandler implements ICommandHandler<ExecuteCommand<unknown, unknown, DomainEvent>> {
  constructor(
    private readonly executor: CommandExecutor,
    private readonly waiter: ProjectionWaiter,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async execute(command: ExecuteCommand<unknown, unknown, DomainEvent>): Promise<Execution<unknown>> {
    const result = await this.executor.execute(command.options);
    // Past the bound the write still stands; the answer carries it, only a following read may lag.
    if (result.position) await this.waiter.waitFor(command.projection, result.position, this.settings.readWaitMs);
    return result;
  }
}
