import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** Runs project TypeScript in a child process (the contract suites' hook). */
const REGISTER_SWC = join(__dirname, '../../../../test/contracts/fixtures/register-swc.js');

/** Runs `body` in a child process with the logger module loaded as `log`; answers its stdout lines, parsed. */
function linesOf(body: string): Record<string, unknown>[] {
  const script = `const log = require(${JSON.stringify(join(__dirname, 'logger'))});\n${body}`;
  const child = spawnSync(process.execPath, ['--require', REGISTER_SWC, '-e', script], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  return child.stdout
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('the process logger', () => {
  it("writes the access line exactly as pino would, and nothing when info is off", () => {
    const [pino, fast, ...rest] = linesOf(`
      const logger = log.createLogger({ name: 'api', pretty: false });
      const info = log.infoLineWriter(logger);
      const fields = { requestId: 'r"1', org: undefined, method: 'svc.notes.v1.NotesService/CreateNote', status: 200, ms: 1.25 };
      logger.info(fields, 'request');
      info(fields, 'request');
      logger.level = 'warn';
      info(fields, 'request');
      process.exit(0);
    `);
    expect(rest).toEqual([]);
    expect(Object.keys(fast)).toEqual(Object.keys(pino));
    expect({ ...fast, time: 0 }).toEqual({ ...pino, time: 0 });
    expect(fast).toMatchObject({ level: 30, name: 'api', requestId: 'r"1', msg: 'request' });
  });

  it('keeps the order of lines and loses none, batched or not, at process.exit or when the loop empties', () => {
    const atExit = linesOf(`
      const logger = log.createLogger({ name: 'api', pretty: false });
      const info = log.infoLineWriter(logger);
      for (let i = 0; i < 2000; i++) (i % 2 ? info : logger.info.bind(logger))({ i }, 'line');
      logger.fatal({ i: 2000 }, 'last words');
      process.exit(1);
    `);
    expect(atExit.map((l) => l.i)).toEqual(Array.from({ length: 2001 }, (_, i) => i));
    const drained = linesOf(`
      const logger = log.createLogger({ name: 'projector', pretty: false });
      for (let i = 0; i < 3; i++) logger.info({ i }, 'line');
    `);
    expect(drained.map((l) => l.i)).toEqual([0, 1, 2]);
  });
});
