import { Global, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { COMMAND_HANDLERS } from './commands/handlers';

/**
 * The application layer in a Nest process: the command bus and its handlers. The api and the
 * projector both import it (after InfrastructureModule, whose CommandService and ProjectionWaiter the
 * handlers use), so a route and a reactor send the same commands through the same handlers.
 */
@Global()
@Module({
  imports: [CqrsModule.forRoot()],
  providers: [...COMMAND_HANDLERS],
  exports: [CqrsModule],
})
export class ApplicationModule {}
