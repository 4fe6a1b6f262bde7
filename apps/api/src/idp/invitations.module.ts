/**
 * CreateOrganizationInvitation (`POST /v1/idp-connections:createOrganizationInvitation`, MEMBERS_WRITE):
 * an invitation into the organization at the identity provider an idp connection of the caller's
 * organization names. The invitee who accepts signs up there; their first bearer sign-in here makes
 * them a member with the organization's default role (spec/operator-config.md). The provider holds the
 * invitation, so nothing is appended here (docs/decisions.md).
 */
import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { INTEGRATION_HELPERS_SERVICE } from '@svc/contracts/catalog';
import { CreateOrganizationInvitationRequest, CreateOrganizationInvitationResponse } from '@svc/contracts/connections/integration-ports.contract';
import { identityProviderOf } from '@svc/infrastructure/integrations/idp/idp-of';
import { vendorFailure } from '@svc/infrastructure/integrations/vendor';
import { ConnectionCredentials, ConnectionsModule } from '../connections/connections.module';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod, type ServiceSettings } from '../resource-kit/method-builders';

/** spec/permissions.md: CreateOrganizationInvitation needs MEMBERS_WRITE. */
const INVITATIONS: ServiceSettings = { service: INTEGRATION_HELPERS_SERVICE, permission: 'MEMBERS_WRITE' };

@Injectable()
class InvitationMethods implements OnModuleInit {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly credentials: ConnectionCredentials,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      defineMethod(
        INVITATIONS,
        'CreateOrganizationInvitation',
        { request: CreateOrganizationInvitationRequest, response: CreateOrganizationInvitationResponse },
        'write',
        async ({ principal, request }) => {
          const connection = await this.credentials.resolve(principal.org, request.connectionName);
          try {
            const idp = identityProviderOf({ ...connection, name: request.connectionName });
            const invitation = await idp.createOrganizationInvitation({ email: request.email, inviterName: principal.subject, ...(request.ttlSeconds ? { ttlSeconds: request.ttlSeconds } : {}) });
            return {
              invitation: {
                id: invitation.id,
                invitationUrl: invitation.url,
                email: invitation.email,
                inviter: principal.subject,
                createTime: invitation.createTime,
                expireTime: invitation.expireTime,
              },
            };
          } catch (error) {
            throw vendorFailure(error, 'IDP');
          }
        },
      ),
    );
  }
}

@Module({ imports: [ConnectionsModule], providers: [InvitationMethods] })
export class InvitationsModule {}
