/**
 * StartCodehostOAuth, StartChatOAuth and StartTrackerOAuth (spec part 1, "Integration helper
 * endpoints"; INTEGRATIONS_WRITE): an authorize URL of the operator's OAuth app for that kind of
 * connection, carrying a signed, expiring state (oauth-state.ts) and a PKCE challenge. Nothing is
 * recorded until the callback (oauth-callback.controller.ts) comes back with a code.
 */
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { INTEGRATION_HELPERS_SERVICE } from '@svc/contracts/catalog';
import { StartOAuthRequest, StartOAuthResponse } from '@svc/contracts/connections/integrations.contract';
import { OAUTH_CREDENTIALS } from '@svc/domain/connections/connection-credential';
import { invalid } from '@svc/domain/shared/domain-error';
import type { OAuthKind } from '@svc/infrastructure/config/integrations-config';
import { OAuthApps } from '@svc/infrastructure/integrations/oauth/oauth-client';
import { OAuthStates } from '@svc/infrastructure/integrations/oauth/oauth-state';
import type { Principal } from '../auth/principal';
import { GetDocumentQuery } from '../cqrs/queries';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod, type ServiceSettings } from '../resource-kit/method-builders';

/** The helpers that change connections need INTEGRATIONS_WRITE (spec/permissions.md). */
export const INTEGRATION_WRITES: ServiceSettings = { service: INTEGRATION_HELPERS_SERVICE, permission: 'INTEGRATIONS_WRITE' };
export const DEFAULT_RETURN_PATH = '/integrations/connections';
export const CONNECTION_NAME = /^connections\/[a-zA-Z0-9][a-zA-Z0-9_-]{0,62}$/;

const METHODS: Record<OAuthKind, string> = { codehost: 'StartCodehostOAuth', chat: 'StartChatOAuth', tracker: 'StartTrackerOAuth' };

/**
 * A relative UI path: `/` then no second `/` or `\` (a protocol-relative `//host` would send the
 * browser elsewhere), printable ASCII only.
 */
export function checkReturnPath(path: string | undefined): string {
  if (path === undefined || path === '') return DEFAULT_RETURN_PATH;
  if (!/^\/(?![/\\])[\x21-\x7e]*$/.test(path) || path.includes('\\')) {
    throw invalid('return_path must be a relative path starting with a single / (printable characters, no spaces)');
  }
  return path;
}

@Injectable()
export class OAuthHelpers implements OnModuleInit {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly queries: QueryBus,
    private readonly apps: OAuthApps,
    private readonly states: OAuthStates,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      ...(Object.keys(METHODS) as OAuthKind[]).map((kind) =>
        defineMethod(INTEGRATION_WRITES, METHODS[kind], { request: StartOAuthRequest, response: StartOAuthResponse }, 'write', ({ principal, request }) =>
          this.start(kind, principal, request),
        ),
      ),
    );
  }

  private async start(kind: OAuthKind, principal: Principal, request: StartOAuthRequest): Promise<StartOAuthResponse> {
    this.apps.app(kind);
    const returnPath = checkReturnPath(request.returnPath);
    const connection = request.connectionName ?? '';
    if (connection !== '') {
      if (!CONNECTION_NAME.test(connection)) throw invalid("connection_name must be 'connections/{id}'");
      // NOT_FOUND outside the caller's organization.
      const doc = await this.queries.execute(new GetDocumentQuery('connections', principal.org, connection, 'connection'));
      const expected = OAUTH_CREDENTIALS[kind].connectionType;
      if (doc.connectionType !== expected) throw invalid(`${connection} is not a ${expected} connection`);
    }
    const { state, id, expiresAt } = await this.states.issue({ org: principal.org, subject: principal.subject, kind, connection, returnPath });
    const authorizeUrl = await this.apps.authorizeUrl(kind, { state, codeChallenge: this.states.codeChallenge(id) });
    return { authorizeUrl, state, expiresAt: expiresAt.toISOString() };
  }
}
