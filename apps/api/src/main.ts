import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadSettings, type Settings } from '@svc/infrastructure/config/env';
import { createLogger, PinoNestLogger } from '@svc/infrastructure/observability/logger';
import { appModule } from './app.module';
import { HTTP_APP_OPTIONS, httpAdapter } from './http/fastify';
import { StartupState } from './operator-config/startup.service';
import { ProjectorSupervisor } from './projector-process';
import { ApiShutdown } from './shutdown';

/**
 * The api process. With SVC_PROJECTOR=process (the default of `npm start`) it also starts the
 * projector as a child process, which it restarts when it dies; with `inprocess` it runs the projector inside this process; with
 * `off` (`npm run start:api`) the projector is started separately (`npm run start:projector`).
 */
const pino = createLogger({ name: 'api' });
// Every Nest Logger line of this process (the projector's too, when in-process) goes through pino.
const nestLogger = new PinoNestLogger(pino);
Logger.overrideLogger(nestLogger);
const logger = new Logger('api');
const shutdown = new ApiShutdown(logger);

async function bootstrap(): Promise<void> {
  const settings = loadSettings();
  if (settings.projectorMode === 'process') {
    shutdown.withProjector(new ProjectorSupervisor({ logger, stopping: () => shutdown.stopping }).launch());
  }
  if (settings.projectorMode === 'inprocess') {
    const { startProjector } = await import('../../projector/src/projector.js');
    const projector = await startProjector(settings, nestLogger);
    shutdown.withProjector({ stop: () => projector.close() });
  }

  const app = await NestFactory.create<NestFastifyApplication>(
    appModule(settings),
    httpAdapter(settings, pino),
    { ...HTTP_APP_OPTIONS, logger: nestLogger },
  );
  shutdown.serving(app);
  await app.listen(settings.port, settings.host);
  const address = `http://${settings.host === '0.0.0.0' ? '127.0.0.1' : settings.host}:${settings.port}`;
  logger.log(`listening on ${address}`);
  printDemoBanner(app.get(StartupState), address, settings);
}

/**
 * For a person, on stderr (stdout carries only JSON log lines). The secret is printed once, when the
 * demo organization is created; later starts say where it is kept instead of repeating it.
 */
function printDemoBanner(startup: StartupState, address: string, settings: Settings): void {
  if (!startup.demo) return;
  const { username, password, organization } = startup.demo;
  const key = startup.demo.created ? `${username}:${password}` : `${username}:...`;
  const lines = startup.demo.created
    ? [
        '',
        `Demo organization '${organization}' created (no SVC_CONFIG given; data in ${settings.dataDir}).`,
        `  API key pair: ${username}:${password}   (shown once; kept in ${startup.demo.file})`,
        `  Try:  curl -s -u '${username}:${password}' ${address}/v1/auth`,
        `  Then: curl -s -u '${username}:${password}' -H 'content-type: application/json' \\`,
        `          -d '{"note_id":"first","note":{"display_name":"Hello"}}' ${address}/svc.notes.v1.NotesService/CreateNote`,
        '',
      ]
    : [
        '',
        `Demo organization '${organization}' is ready at ${address} (no SVC_CONFIG given; data in ${settings.dataDir}).`,
        `  Its API key pair (${username}:...) was printed when it was created; it is kept in ${startup.demo.file}.`,
        '',
      ];
  lines.splice(lines.length - 1, 0, ...demoAgentLines(startup, key, address, settings));
  process.stderr.write(lines.join('\n') + '\n');
}

/**
 * How to ask the demo agent about the sample database (when the machine's PostgreSQL gave one): a
 * Write whose `/tool` line the built-in runtime runs (docs/operations.md, "What the built-in runtime answers").
 */
function demoAgentLines(startup: StartupState, key: string, address: string, settings: Settings): string[] {
  const demo = startup.demo;
  if (!demo?.agent || !demo.database) return [];
  const text = '/tool TOOL_SQLDB_QUERY {\\"sql\\": \\"select status, count(*) from orders group by status order by status\\"}';
  const write = `{"parent":"${demo.agent}","messages":[{"@type":"${settings.typeHost}/svc.nxagent.v1.Activity","user":{"text":{"text":"${text}"}}}]}`;
  return [
    `  Ask ${demo.agent} about the sample orders database (PostgreSQL ${demo.database.database} on ${demo.database.host}:${demo.database.port}):`,
    `  curl -s -u '${key}' -H 'content-type: application/json' \\`,
    `    -d '${write}' \\`,
    `    ${address}/svc.nxagent.v2.AgentService/Write`,
    `  then read its answer: curl -s -u '${key}' -H 'content-type: application/json' -d '{"session":"<the session above>"}' ${address}/svc.nxagent.v2.AgentService/Read`,
  ];
}

// A fault nothing handled is logged and stops the api like a signal does (drain, then the projector), with status 1.
shutdown.catchFatal();
void bootstrap().catch((error: unknown) => {
  logger.error(error instanceof Error ? error.message : String(error), error instanceof Error ? error.stack : undefined, 'api');
  process.exit(1);
});
