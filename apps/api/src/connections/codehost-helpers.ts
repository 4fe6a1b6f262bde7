/**
 * ListRepositories and ListRepositoryBranches (spec part 1, "Integration helpers"): live reads of a
 * code-host connection of the caller's organization, any member may read. Page tokens carry an offset
 * bound to the connection (and repository) they were issued for; page_size defaults to and is capped
 * at 100.
 */
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { INTEGRATION_HELPERS_SERVICE } from '@svc/contracts/catalog';
import {
  CODEHOST_PAGE,
  ListRepositoriesRequest,
  ListRepositoriesResponse,
  ListRepositoryBranchesRequest,
  ListRepositoryBranchesResponse,
} from '@svc/contracts/connections/codehost.contract';
import { invalid } from '@svc/domain/shared/domain-error';
import { decodePageToken, encodePageToken, pageSize, queryFingerprint } from '@svc/infrastructure/query/page-token';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod, type ServiceSettings } from '../resource-kit/method-builders';
import { ConnectionCredentials } from './connection-credentials';

const HELPERS: ServiceSettings = { service: INTEGRATION_HELPERS_SERVICE };

@Injectable()
export class CodehostHelpers implements OnModuleInit {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly credentials: ConnectionCredentials,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      defineMethod(HELPERS, 'ListRepositories', { request: ListRepositoriesRequest, response: ListRepositoriesResponse }, 'read', async ({ principal, request }) => {
        const page = pageOf(request, { connection: request.connectionName });
        const slice = await this.credentials.withCodeHost(principal.org, request.connectionName, (host) => host.listRepositories(page.offset, page.size));
        return { repositories: slice.items, nextPageToken: page.tokenAt(slice.next) };
      }),
      defineMethod(
        HELPERS,
        'ListRepositoryBranches',
        { request: ListRepositoryBranchesRequest, response: ListRepositoryBranchesResponse },
        'read',
        async ({ principal, request }) => {
          const page = pageOf(request, { connection: request.connectionName, repository: request.repository });
          const [repository, slice] = await this.credentials.withCodeHost(principal.org, request.connectionName, (host) =>
            Promise.all([host.getRepository(request.repository), host.listBranches(request.repository, page.offset, page.size)]),
          );
          return { branches: slice.items, defaultBranch: repository.defaultBranch, nextPageToken: page.tokenAt(slice.next) };
        },
      ),
    );
  }
}

/** The page a request asks for: its size, its start, and how to name the next one. */
function pageOf(request: ListRepositoriesRequest, boundTo: Record<string, string>) {
  const fingerprint = queryFingerprint({ extra: boundTo });
  const decoded = decodePageToken(request.pageToken, fingerprint);
  const offset = decoded === null ? 0 : decoded.after[0];
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) throw invalid('page_token is invalid');
  return {
    offset,
    size: pageSize(request.pageSize, CODEHOST_PAGE),
    tokenAt: (next: number | null) => (next === null ? '' : encodePageToken({ q: fingerprint, after: [next] })),
  };
}
