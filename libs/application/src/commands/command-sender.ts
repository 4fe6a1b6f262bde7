import type { Command, ICommandHandler } from '@nestjs/cqrs';
import type { CommandService } from '@svc/infrastructure/commands/command-service';
import { ClaimSessionName, ClaimSessionNameHandler } from '../sessions/start-session';
import { ClaimUniqueValues, ClaimUniqueValuesHandler } from './claim-unique-values';
import { DecideAndAppend, DecideAndAppendHandler } from './decide-and-append';

/**
 * What a use case sends its commands through: `@nestjs/cqrs`'s CommandBus in the api and the
 * projector (ApplicationModule registers the handlers), `localCommandBus` where no Nest runs (the CLI).
 * Either way a command reaches the same handler.
 */
export interface CommandSender {
  execute<R>(command: Command<R>): Promise<R>;
}

/**
 * The command handlers without Nest, for the CLI: the same handler classes, dispatched by the
 * command's class. It never waits for a projection (no projector need be running): a command that
 * names one is refused rather than answered without read-your-writes.
 */
export function localCommandBus(commands: CommandService): CommandSender {
  const noWaiter = { waitFor: async () => false };
  const handlers = new Map<unknown, ICommandHandler>([
    [DecideAndAppend, new DecideAndAppendHandler(commands, noWaiter, { readWaitMs: 0 })],
    [ClaimUniqueValues, new ClaimUniqueValuesHandler(commands)],
    [ClaimSessionName, new ClaimSessionNameHandler(commands)],
  ]);
  return {
    execute<R>(command: Command<R>): Promise<R> {
      if (command instanceof DecideAndAppend && command.projection) {
        // Checked before anything is appended: the caller must not be told of a write it did not ask for.
        return Promise.reject(new Error('the local command bus does not wait for projections: send the command without one'));
      }
      const handler = handlers.get(command.constructor);
      if (!handler) throw new Error(`no handler for ${command.constructor.name}`);
      return handler.execute(command) as Promise<R>;
    },
  };
}
