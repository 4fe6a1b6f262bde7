import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadSettings } from '@svc/infrastructure/config/env';
import { GracefulStop } from '@svc/infrastructure/nest/graceful-stop';
import { createLogger, PinoNestLogger } from '@svc/infrastructure/observability/logger';
import { startProjector } from './projector';

// Every line of this process is a pino JSON line (pretty only on a terminal), as the api's.
const nestLogger = new PinoNestLogger(createLogger({ name: 'projector' }));
Logger.overrideLogger(nestLogger);
const logger = new Logger('projector');
let app: Awaited<ReturnType<typeof startProjector>> | null = null;
// Closing the app stops the projections after the page being committed, then closes the stores.
const shutdown = new GracefulStop(async () => app?.close(), { logger }).catchFatal();
// Ctrl-C reaches the whole process group: a forked projector leaves it to its parent api, which stops
// it once the api's requests (waiting for this projector) have drained.
shutdown.listen(() => process.connected);
// A forked projector follows its parent api: when the parent goes, so does it.
process.once('disconnect', () => void shutdown.stop('the api went away'));

void (async () => {
  app = await startProjector(loadSettings(), nestLogger);
})().catch((error: unknown) => {
  logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
