#!/usr/bin/env node
/**
 * The operator CLI (`npm run svc -- <command>`): plain Node on the same stores as the api and the
 * projector, chosen by the same environment (SVC_DATA_DIR, EVENTSTORE_URL, MONGODB_URL).
 * Exit codes: 0 done, 1 failed (or nothing found), 2 wrong command line.
 */
// The projections import the contracts, whose DTO decorators read design-time type metadata.
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { audit } from './commands/audit';
import { configApply, configSchema } from './commands/config';
import { recordEvaluation } from './commands/evaluations';
import { browseEvents } from './commands/events';
import { listParked, rebuild, replayParkedCommand, status } from './commands/projections';
import { mergePull, openPull, pullComments, type PullOptions } from './commands/pulls';
import { ingestRowsCommand } from './commands/rows';
import { Context, parseCount, UsageError } from './context';

export const USAGE = `usage: npx svc <command> [--json]   (or: npm run svc -- <command>)

  audit <org> <resource-name>        every event of one resource, e.g. audit acme notes/disk-full
                                     (roles/, users/, service-accounts/: the access events that name it)
  events [--after <position>] [--limit <n>] [--stream <id>] [--type <EventType>] [--org <org>]
         [--since <time>] [--correlation <request id>]
                                     browse the event log forwards (default: first 100 events);
                                     --since: RFC 3339 or a duration ago (15m, 2h, 7d);
                                     --correlation: the events one request appended (its X-Request-Id);
                                     exit 1 when no event matches
  events --reverse [--before <position>] [--limit <n>] [filters]
                                     newest first, from the head (or before a position)
  events --follow [--after <position>] [--limit <n>] [filters]
                                     tail the log live until Ctrl-C (NDJSON with --json); with
                                     --after, what followed that position first, with no gap
  projections status                 checkpoints, head, lag (events and seconds), parked events, projector heartbeat
  projections rebuild <name>|--all [--timeout <seconds>]
                                     rebuild read models from the start (by the running projector if any)
  projections parked [<name>]        events a projection could not apply, with their errors
  projections replay-parked <name>   retry them once their cause is fixed: applied ones leave the
                                     parked list (exit 1 while any stays parked)
  config apply <file>                apply an operator configuration file (idempotent)
  config schema                      the JSON Schema of that file (docs/operator-config.schema.json)
  evaluations record --org <org> [--file <file>]
                                     record a deployment monitor evaluation (or its progress): the
                                     RecordDeploymentMonitorEvaluation request body as JSON, from
                                     the file or stdin
  rows ingest --org <org> [--file <file>]
                                     ingest rows for row triggers: the IngestRows request body
                                     ({"table": ..., "rows": [...]}) as JSON, from the file or stdin
  pulls open --root <dir> --repo <owner/repo> --head <branch> --title <text> [--base <branch>]
         [--body <markdown>] [--author <login:id>]
                                     open a pull request on a local-git code host (records kept in
                                     the repository's git directory); prints its URL
  pulls merge --root <dir> --repo <owner/repo> --number <n> [--merge-sha <ref>]
                                     record that it landed (default: the repository's HEAD)
  pulls comments --root <dir> --repo <owner/repo> --number <n>
                                     the comments posted on it
  help                               this text

  --json prints one JSON document for machines instead of text (events --follow: one per line).
  Rebuild progress goes to stderr: a bar on a terminal, NDJSON lines with --json.
  Environment: SVC_DATA_DIR (default ./data), EVENTSTORE_URL, MONGODB_URL, SVC_ENCRYPTION_KEY.`;

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface Command {
  options: Options;
  /** Returns false when the command found nothing (exit 1). */
  run(ctx: Context, positionals: string[], values: Values): Promise<boolean | void>;
}

const str = (values: Values, key: string): string | undefined => {
  const v = values[key];
  return typeof v === 'string' ? v : undefined;
};

const COMMANDS: Record<string, Command> = {
  audit: {
    options: {},
    run: (ctx, [org, name, ...extra]) => {
      noExtra(extra);
      return audit(ctx, org, name);
    },
  },
  events: {
    options: {
      after: { type: 'string' },
      before: { type: 'string' },
      limit: { type: 'string' },
      stream: { type: 'string' },
      type: { type: 'string' },
      org: { type: 'string' },
      since: { type: 'string' },
      correlation: { type: 'string' },
      reverse: { type: 'boolean' },
      follow: { type: 'boolean' },
    },
    run: (ctx, extra, v) => {
      noExtra(extra);
      return browseEvents(ctx, {
        after: str(v, 'after'),
        before: str(v, 'before'),
        limit: str(v, 'limit'),
        stream: str(v, 'stream'),
        type: str(v, 'type'),
        org: str(v, 'org'),
        since: str(v, 'since'),
        correlation: str(v, 'correlation'),
        reverse: v.reverse === true,
        follow: v.follow === true,
      });
    },
  },
  'projections status': {
    options: {},
    run: (ctx, extra) => {
      noExtra(extra);
      return status(ctx);
    },
  },
  'projections rebuild': {
    options: { all: { type: 'boolean' }, timeout: { type: 'string' } },
    run: (ctx, names, v) => rebuild(ctx, names, v.all === true, parseCount(str(v, 'timeout'), '--timeout', 600) * 1000),
  },
  'projections parked': {
    options: {},
    run: (ctx, [name, ...extra]) => {
      noExtra(extra);
      return listParked(ctx, name);
    },
  },
  'projections replay-parked': {
    options: {},
    run: (ctx, [name, ...extra]) => {
      noExtra(extra);
      return replayParkedCommand(ctx, name);
    },
  },
  'config apply': {
    options: {},
    run: (ctx, [file, ...extra]) => {
      noExtra(extra);
      return configApply(ctx, file);
    },
  },
  'config schema': {
    options: {},
    run: async (ctx, extra) => {
      noExtra(extra);
      configSchema(ctx);
    },
  },
  'evaluations record': {
    options: { org: { type: 'string' }, file: { type: 'string' } },
    run: (ctx, extra, v) => {
      noExtra(extra);
      return recordEvaluation(ctx, str(v, 'org'), str(v, 'file'), () => readFileSync(0, 'utf8'));
    },
  },
  'rows ingest': {
    options: { org: { type: 'string' }, file: { type: 'string' } },
    run: (ctx, extra, v) => {
      noExtra(extra);
      return ingestRowsCommand(ctx, str(v, 'org'), str(v, 'file'), () => readFileSync(0, 'utf8'));
    },
  },
  'pulls open': pullsCommand(openPull),
  'pulls merge': pullsCommand(mergePull),
  'pulls comments': pullsCommand(pullComments),
};

function pullsCommand(run: (ctx: Context, options: PullOptions) => Promise<void>): Command {
  const names = ['root', 'repo', 'head', 'base', 'title', 'body', 'author', 'number', 'merge-sha'];
  return {
    options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])),
    run: (ctx, extra, v) => {
      noExtra(extra);
      return run(ctx, { ...Object.fromEntries(names.map((n) => [n, str(v, n)])), mergeSha: str(v, 'merge-sha') } as PullOptions);
    },
  };
}

function noExtra(extra: string[]): void {
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
}

export async function main(argv: string[]): Promise<number> {
  const words = argv.filter((a) => a !== '--json');
  if (words.length === 0 || ['help', '--help', '-h'].includes(words[0])) {
    process.stdout.write(`${USAGE}\n`);
    return words.length === 0 ? 2 : 0;
  }
  const key = [`${words[0]} ${words[1] ?? ''}`, words[0]].find((k) => k in COMMANDS);
  if (!key) return usageError(`unknown command '${words.slice(0, 2).join(' ')}'`);
  const command = COMMANDS[key];
  let ctx: Context | null = null;
  try {
    // Drop the command words; everything else (flags included) goes to the command's own parser.
    let skip = key.split(' ').length;
    const rest = argv.filter((a) => a === '--json' || skip-- <= 0);
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    ctx = new Context(argv.includes('--json'));
    const found = await command.run(ctx, positionals, values);
    return found === false ? 1 : 0;
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) return usageError((error as Error).message);
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await ctx?.close();
  }
}

function usageError(message: string): number {
  process.stderr.write(`error: ${message}\n\n${USAGE}\n`);
  return 2;
}

function isParseArgsError(error: unknown): boolean {
  return error instanceof TypeError && String((error as NodeJS.ErrnoException).code ?? '').startsWith('ERR_PARSE_ARGS');
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
