import { ConsoleLogger } from '@nestjs/common';

/** Nest's own wiring chatter (module and route registration) is noise for an operator; our lines are not. */
const WIRING = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

export class QuietLogger extends ConsoleLogger {
  override log(message: unknown, context?: string): void {
    if (context && WIRING.has(context)) return;
    super.log(message, context);
  }
}
