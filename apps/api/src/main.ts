import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';
import { loadSettings, type Settings } from '@svc/infrastructure/config/env';
import { QuietLogger } from '@svc/infrastructure/nest/quiet-logger';
import { appModule } from './app.module';
import { HTTP_APP_OPTIONS, httpAdapter } from './http/fastify';
import { StartupState } from './operator-config/startup.service';

/**
 * The api process. With SVC_PROJECTOR=process (the default of `npm start`) it also starts the
 * projector as a child process; with `inprocess` it runs the projector inside this process; with
 * `off` (`npm run start:api`) the projector is started separately (`npm run start:projector`).
 */
async function bootstrap(): Promise<void> {
  const settings = loadSettings();
  const logger = new Logger('api');
  let projector: ChildProcess | null = null;
  if (settings.projectorMode === 'process') projector = startProjectorProcess(logger);
  if (settings.projectorMode === 'inprocess') {
    const { startProjector } = await import('../../projector/src/projector');
    await startProjector(settings);
  }

  const app = await NestFactory.create<NestFastifyApplication>(
    appModule(settings),
    httpAdapter(settings),
    { ...HTTP_APP_OPTIONS, logger: new QuietLogger() },
  );
  app.enableShutdownHooks();
  await app.listen(settings.port, settings.host);
  const address = `http://${settings.host === '0.0.0.0' ? '127.0.0.1' : settings.host}:${settings.port}`;
  logger.log(`listening on ${address}`);
  printDemoBanner(app.get(StartupState), address, settings);

  const stop = async () => {
    projector?.kill('SIGTERM');
    await app.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

function startProjectorProcess(logger: Logger): ChildProcess {
  const child = fork(path.join(__dirname, '../../projector/src/main.js'), [], { stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    logger.error(`projector exited (${signal ?? code}); stopping the api so a supervisor restarts both`);
    process.exit(1);
  });
  return child;
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
