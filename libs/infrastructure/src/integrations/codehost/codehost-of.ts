/**
 * The code host a connection names: `details.codehost.provider` is `local-git` (`root`, a directory of
 * `{owner}/{repo}` repositories; relative to the process's working directory) or `github` (`api_url`,
 * default https://api.github.com, and `token`). Details arrive with secrets opened and keys camelCased.
 */
import * as path from 'node:path';
import { DomainError, failedPrecondition, invalid } from '@svc/domain/shared/domain-error';
import { openSecrets, type SecretBox } from '../../config/secrets';
import { toCamelDeep } from '../../wire/casing';
import { CodeHostError, type CodeHost } from './codehost.port';
import { GitHubCodeHost } from './github.codehost';
import { LocalGitCodeHost } from './local-git.codehost';

export const CODEHOST_CONNECTION_TYPE = 'CONNECTION_TYPE_CODEHOST';

export interface CodeHostConnection {
  name: string;
  connectionType?: unknown;
  connectionDetails?: unknown;
}

/** `timeoutMs` bounds each call to the host (a `git` run, an HTTP request); the adapters' default otherwise. */
export function codeHostOf(connection: CodeHostConnection, options: { timeoutMs?: number } = {}): CodeHost {
  if (connection.connectionType !== CODEHOST_CONNECTION_TYPE) throw invalid(`${connection.name} is not a code-host connection`);
  const details = (connection.connectionDetails as { codehost?: Record<string, unknown> } | undefined)?.codehost ?? {};
  const provider = details.provider;
  if (provider === 'local-git' && typeof details.root === 'string' && details.root !== '') {
    return new LocalGitCodeHost({ root: path.resolve(details.root), ...options });
  }
  if (provider === 'github' && typeof details.token === 'string' && details.token !== '') {
    return new GitHubCodeHost({ token: details.token, ...(typeof details.apiUrl === 'string' ? { apiUrl: details.apiUrl } : {}), ...options });
  }
  throw failedPrecondition(`${connection.name} names no usable code host (details.codehost needs provider local-git with root, or github with token)`, 'CODEHOST_NOT_CONFIGURED');
}

/**
 * The code host of a connection as the read model stores it (secrets sealed, keys as written), for the
 * processes that act without a request: secrets opened with this process's key, keys camelCased.
 */
export function codeHostOfDocument(doc: Record<string, unknown>, secrets: SecretBox, options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): CodeHost {
  const connectionDetails = toCamelDeep(openSecrets(doc.connectionDetails ?? {}, secrets, options.env));
  return codeHostOf({ name: String(doc.name), connectionType: doc.connectionType, connectionDetails }, { timeoutMs: options.timeoutMs });
}

/**
 * A code host's failure as the API answers it. The connection's credentials being refused is the
 * connection's problem, not the caller's permission: FAILED_PRECONDITION.
 */
export function codeHostFailure(error: unknown): unknown {
  if (!(error instanceof CodeHostError)) return error;
  if (error.code === 'PERMISSION_DENIED') return failedPrecondition(error.message, 'CODEHOST_ACCESS_REFUSED');
  return new DomainError(error.code, error.message);
}
