/**
 * The code host tools (issue 21) through the code host port: read a file, list a directory, list
 * commits, search code, on a CONNECTION_TYPE_CODEHOST connection (`details.codehost`, as
 * codehost-of.ts reads it: local git or GitHub). Every call is bounded in time (the port's host is
 * built with the call's timeout), in entries, commits and matches (maxRows and the caps below) and in
 * bytes (maxBytes of JSON). The port's errors carry codes the model can act on and never a credential;
 * the executor still redacts the connection's opened secrets from whatever is answered.
 */
import { DomainError } from '@svc/domain/shared/domain-error';
import { jsonBytes, cutToJsonBytes } from '../bounded-body';
import { ToolAdapter, ToolConnection, ToolContext, ToolError, type ToolErrorCode } from '../tool-adapter.port';
import { CODEHOST_CONNECTION_TYPE, codeHostOf } from '../../codehost/codehost-of';
import { checkFullName, CodeHostError, type CodeHost } from '../../codehost/codehost.port';
import { toCamelDeep } from '../../../wire/casing';

export const CODEHOST_TOOLS = ['TOOL_CODEHOST_READ_FILE', 'TOOL_CODEHOST_LIST_DIRECTORY', 'TOOL_CODEHOST_LIST_COMMITS', 'TOOL_CODEHOST_SEARCH'] as const;

/** Commits one TOOL_CODEHOST_LIST_COMMITS answers at most (and by default). */
export const MAX_TOOL_COMMITS = 100;
export const DEFAULT_TOOL_COMMITS = 20;
/** Matches one TOOL_CODEHOST_SEARCH answers at most (and by default). */
export const MAX_TOOL_MATCHES = 100;
export const DEFAULT_TOOL_MATCHES = 30;
/** Room kept in maxBytes for the fields around a file's text. */
const ENVELOPE_BYTES = 1024;

type HostOf = (connection: ToolConnection, timeoutMs: number) => CodeHost;

/** The connection's host, from its `details.codehost` section (opened, keys as written). */
const hostOfConnection: HostOf = (connection, timeoutMs) =>
  codeHostOf({ name: connection.name, connectionType: connection.type, connectionDetails: { codehost: toCamelDeep(connection.details) } }, { timeoutMs });

export class CodeHostToolAdapter implements ToolAdapter {
  readonly connectionType = CODEHOST_CONNECTION_TYPE;
  readonly tools: readonly string[] = CODEHOST_TOOLS;

  constructor(private readonly hostOf: HostOf = hostOfConnection) {}

  async run(tool: string, args: Record<string, unknown>, connection: ToolConnection, context: ToolContext): Promise<Record<string, unknown>> {
    try {
      const host = this.hostOf(connection, context.limits.timeoutMs);
      return await this.call(host, tool, args, context);
    } catch (error) {
      if (error instanceof CodeHostError) throw new ToolError(error.code, `${connection.name}: ${error.message}`);
      if (error instanceof DomainError) throw new ToolError(asToolCode(error.code), error.message);
      throw error;
    }
  }

  async close(): Promise<void> {
    // Nothing pooled: a `git` run or an HTTP request per call.
  }

  private async call(host: CodeHost, tool: string, args: Record<string, unknown>, { limits }: ToolContext): Promise<Record<string, unknown>> {
    const repository = repositoryArgument(args);
    switch (tool) {
      case 'TOOL_CODEHOST_READ_FILE': {
        const path = stringArgument(args, 'path', true);
        const { ref, commit } = await refOf(host, repository, args);
        const budget = Math.max(0, limits.maxBytes - ENVELOPE_BYTES);
        const file = await host.readFile(repository, commit, path, budget);
        if (file === null) throw new ToolError('NOT_FOUND', `${repository} has no file '${path}' at ${ref}`);
        // Escapes make JSON text longer than the bytes read: the text is cut again to its JSON size.
        const text = cutToJsonBytes(file.text, budget);
        return { repository, ref, commit, path, text, ...(file.truncated || text.length < file.text.length ? { truncated: true } : {}) };
      }
      case 'TOOL_CODEHOST_LIST_DIRECTORY': {
        const path = stringArgument(args, 'path', false) ?? '';
        const { ref, commit } = await refOf(host, repository, args);
        const entries = await host.listDirectory(repository, commit, path);
        return fitList({ repository, ref, commit, path }, 'entries', entries, limits.maxRows, limits.maxBytes);
      }
      case 'TOOL_CODEHOST_LIST_COMMITS': {
        const limit = Math.min(countArgument(args, 'limit', DEFAULT_TOOL_COMMITS, MAX_TOOL_COMMITS), limits.maxRows);
        const { ref, commit } = await refOf(host, repository, args);
        const base = stringArgument(args, 'base', false);
        // One more than asked: whether the history goes on is then known without a second call.
        const commits = base === undefined ? await host.listCommits(repository, commit, limit + 1) : await host.commitsBetween(repository, base, commit, limit + 1);
        return fitList({ repository, ref, ...(base === undefined ? {} : { base }) }, 'commits', commits, limit, limits.maxBytes);
      }
      case 'TOOL_CODEHOST_SEARCH': {
        const query = stringArgument(args, 'query', true);
        const path = stringArgument(args, 'path', false);
        const limit = Math.min(countArgument(args, 'limit', DEFAULT_TOOL_MATCHES, MAX_TOOL_MATCHES), limits.maxRows);
        const found = await host.searchCode(repository, query, { maxMatches: limit, ...(path === undefined ? {} : { path }) });
        const result = fitList({ repository, query }, 'matches', found.matches, limit, limits.maxBytes);
        return found.truncated ? { ...result, truncated: true } : result;
      }
      default:
        throw new ToolError('INVALID_ARGUMENT', `${tool} is not a code host tool`);
    }
  }
}

function repositoryArgument(args: Record<string, unknown>): string {
  const repository = args.repository;
  if (typeof repository !== 'string' || repository === '') throw new ToolError('INVALID_ARGUMENT', "'repository' must name a repository as owner/repo");
  checkFullName(repository);
  return repository;
}

function stringArgument(args: Record<string, unknown>, field: string, required: true): string;
function stringArgument(args: Record<string, unknown>, field: string, required: false): string | undefined;
function stringArgument(args: Record<string, unknown>, field: string, required: boolean): string | undefined {
  const value = args[field];
  if (value === undefined || value === null || value === '') {
    if (required) throw new ToolError('INVALID_ARGUMENT', `'${field}' is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw new ToolError('INVALID_ARGUMENT', `'${field}' must be a string`);
  return value;
}

function countArgument(args: Record<string, unknown>, field: string, fallback: number, max: number): number {
  const value = args[field];
  if (value === undefined || value === null) return fallback;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new ToolError('INVALID_ARGUMENT', `'${field}' must be a positive whole number`);
  return Math.min(n, max);
}

/** The ref the call reads (its `ref`, else the default branch) and the commit it names, resolved once. */
async function refOf(host: CodeHost, repository: string, args: Record<string, unknown>): Promise<{ ref: string; commit: string }> {
  const ref = stringArgument(args, 'ref', false) ?? (await host.getRepository(repository)).defaultBranch;
  const commit = ref === '' ? null : await host.resolveRef(repository, ref);
  if (commit === null) throw new ToolError('NOT_FOUND', `${repository} has no branch, tag or commit '${ref}'`);
  return { ref, commit };
}

/** `head` with `items` under `key`, at most `max` of them and within `maxBytes` of JSON; `truncated` when cut. */
function fitList<T>(head: Record<string, unknown>, key: string, items: readonly T[], max: number, maxBytes: number): Record<string, unknown> {
  let kept = items.slice(0, max);
  let truncated = items.length > max;
  let result: Record<string, unknown> = { ...head, [key]: kept };
  // Halving, then the result is small enough: logarithmic in the items, each step linear.
  while (kept.length > 0 && jsonBytes(result) > maxBytes - 32) {
    kept = kept.slice(0, Math.floor(kept.length / 2));
    truncated = true;
    result = { ...head, [key]: kept };
  }
  return truncated ? { ...result, truncated: true } : result;
}

function asToolCode(code: string): ToolErrorCode {
  const known: readonly ToolErrorCode[] = ['INVALID_ARGUMENT', 'NOT_FOUND', 'PERMISSION_DENIED', 'DEADLINE_EXCEEDED', 'UNAVAILABLE', 'FAILED_PRECONDITION'];
  return (known as readonly string[]).includes(code) ? (code as ToolErrorCode) : 'FAILED_PRECONDITION';
}
