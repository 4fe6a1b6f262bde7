import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadSettings, type Settings } from '@svc/infrastructure/config/env';
import { appModule } from './app.module';
import { HTTP_APP_OPTIONS, httpAdapter } from './http/fastify';
import { createLogger, PinoNestLogger } from './observability/logger';
import { StartupState } from './operator-config/startup.service';
import { startProjectorProcess } from './projector-process';
import { ApiShutdown } from './shutdown';

/**
 * The api process. With SVC_PROJECTOR=process (the default of `npm start`) it also starts the
 * projector as a child process; with `inprocess` it runs the projector inside this process; with
 * `off` (`npm run start:api`) the projector is started separately (`npm run start:projector`).
 */
async function bootstrap(): Promise<void> {
  const settings = loadSettings();
  const pino = createLogger();
  // Every Nest Logger line of this process (the projector's too, when in-process) goes through pino.
  Logger.overrideLogger(new PinoNestLogger(pino));
  const logger = new Logger('api');
  const shutdown = new ApiShutdown(logger);
  if (settings.projectorMode === 'process') shutdown.withProjector(startProjectorProcess(shutdown, logger));
  if (settings.projectorMode === 'inprocess') {
    const { startProjector } = await import('../../projector/src/projector');
    const projector = await startProjector(settings);
    shutdown.withProjector({ stop: () => projector.close() });
  }

  const app = await NestFactory.create<NestFastifyApplication>(
    appModule(settings),
    httpAdapter(settings, pino),
    { ...HTTP_APP_OPTIONS, logger: new PinoNestLogger(pino) },
  );
  shutdown.serving(app);
  await app.listen(settings.port, settings.host);
  const address = `http://${settings.host === '0.0.0.0' ? '127.0.0.1' : settings.host}:${settings.port}`;
  logger.log(`listening on ${address}`);
  printDemoBanner(app.get(StartupState), address, settings);
}

function printDemoBanner(startup: StartupState, address: string, settings: Settings): void {
  if (!startup.demo) return;
  const { username, password, organization } = startup.demo;
  const lines = [
    '',
    `Demo organization '${organization}' is ready (no SVC_CONFIG given; data in ${settings.dataDir}).`,
    `  API key pair: ${username}:${password}`,
    `  Try:  curl -s -u '${username}:${password}' ${address}/v1/auth`,
    `  Then: curl -s -u '${username}:${password}' -H 'content-type: application/json' \\`,
    `          -d '{"note_id":"first","note":{"display_name":"Hello"}}' ${address}/svc.notes.v1.NotesService/CreateNote`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

void bootstrap().catch((error: unknown) => {
  new Logger('api').error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
