import { readFileSync } from 'node:fs';
import { IngestRowsRequest, ROWS_PRESERVE_KEYS } from '@svc/contracts/rows/rows.contract';
import { PERMISSIONS } from '@svc/contracts/roles/permissions';
import type { Actor } from '@svc/domain/shared/decider';
import { DomainError } from '@svc/domain/shared/domain-error';
import { localCommandBus } from '@svc/application/commands/command-sender';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import { docId } from '@svc/infrastructure/projection/projection';
import { parseRequest } from '@svc/infrastructure/requests/parse-request';
import { ingestRows } from '@svc/application/rows/ingest-rows';
import { type Context, UsageError } from '../context';
import { CLI_ACTOR } from './evaluations';

/**
 * `rows ingest --org <org> [--file <file>]`: IngestRows from the command line, the same request
 * body (`{"table": ..., "rows": [...]}`) read from a file or stdin, through the same checks and
 * stream the RPC uses; the projector's row reactor matches the rows against the row triggers.
 */
export async function ingestRowsCommand(ctx: Context, org: string | undefined, file: string | undefined, stdin: () => string): Promise<void> {
  if (!org) throw new UsageError('rows ingest needs --org <organization>');
  let body: unknown;
  try {
    body = JSON.parse(file && file !== '-' ? readFileSync(file, 'utf8') : stdin());
  } catch (error) {
    throw new UsageError(`rows ingest needs a JSON request body {"table": ..., "rows": [...]} (--file or stdin): ${(error as Error).message}`);
  }
  const request = await parseRequest({ request: IngestRowsRequest, preserveKeysUnder: ROWS_PRESERVE_KEYS }, body);
  const reads = await ctx.reads();
  if (!(await reads.collection('organizations').findOne({ _id: docId(org, `organizations/${org}`) }))) {
    throw new DomainError('NOT_FOUND', `organization '${org}' not found`);
  }
  const actor: Actor = { org, actor: CLI_ACTOR, subject: CLI_ACTOR, permissions: [...PERMISSIONS], now: new Date().toISOString() };
  const result = await ingestRows(localCommandBus(new CommandService(ctx.events())), actor, request);
  ctx.print(result, (r) => `${r.ingestion}: ${r.rowCount} row(s) of ${r.table} ${r.appended ? 'ingested' : 'already ingested (same request_id)'}`);
}
