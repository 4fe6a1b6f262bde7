import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadSettings } from '@svc/infrastructure/config/env';
import { startProjector } from './projector';

void (async () => {
  const app = await startProjector(loadSettings());
  const stop = async () => {
    await app.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  // A forked projector follows its parent api: when the parent goes, so does it.
  process.once('disconnect', () => void stop());
})().catch((error: unknown) => {
  new Logger('projector').error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
