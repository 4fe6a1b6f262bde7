import type { Logger } from '@nestjs/common';
import { type ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';
import type { ApiShutdown, Companion } from './shutdown';

/**
 * The projector as a child process of the api (SVC_PROJECTOR=process). Stopped by the api after its
 * requests have drained. If it exits on its own, the api stops too: with status 0 when the projector
 * stopped cleanly (it was told to stop, as by a SIGTERM to the process group), with status 1 when it
 * crashed, so a supervisor restarts both.
 */
export function startProjectorProcess(shutdown: ApiShutdown, logger: Logger): Companion {
  const child: ChildProcess = fork(path.join(__dirname, '../../projector/src/main.js'), [], { stdio: 'inherit' });
  const exited = new Promise<string | null>((resolve) => {
    child.once('exit', (code, signal) => {
      const failure = code === 0 ? null : `projector exited (${signal ?? code})`;
      if (!shutdown.stopping) {
        if (failure) logger.error(`${failure}; stopping the api so a supervisor restarts both`);
        void shutdown.stop(failure ? 'the projector crashed' : 'the projector stopped', failure ? 1 : 0);
      }
      resolve(failure);
    });
  });
  return {
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const failure = await exited;
      if (failure) throw new Error(failure);
    },
  };
}
