import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { CommandBus, type IQueryHandler, Query, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { isPermission } from '@svc/contracts/roles/permissions';
import {
  AssignRolesRequest,
  CreateRoleRequest,
  AssignRolesResponse,
  ListUsersWithPermissionRequest,
  ListUsersWithPermissionResponse,
  roleFilters,
  roleShape,
  roleOrderBy,
  ROLES_SERVICE,
  UpdateRoleRequest,
} from '@svc/contracts/roles/roles.contract';
import { ListRequest, type MutatingRequest, NameRequest } from '@svc/contracts/shared/requests';
import { EmptyResponse, pageResponse, resourceResponse } from '@svc/contracts/shared/responses';
import { type AccessCommand, accessDecider, type AccessEvent, type AccessState, effectivePermissions } from '@svc/domain/roles/access.decider';
import { invalid } from '@svc/domain/shared/domain-error';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import { decodePageToken, encodePageToken, pageSize, queryFingerprint } from '@svc/infrastructure/query';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { randomUUID } from 'node:crypto';
import { actorOf, type Principal } from '../auth/principal';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod, getMethod, listMethod, type ServiceSettings } from '../resource-kit/method-builders';
import { maskScope, nameRule, type MaskRules } from '../resource-kit/request-envelopes';

/** The projection serving roles and members (checkpoint name). */
const ACCESS = 'access';
const ROLES: ServiceSettings = { service: ROLES_SERVICE, permission: 'ROLES_WRITE' };
const roleName = nameRule(/^roles\/[^/]+$/, 'roles/{role_id}');
/** A role's update_mask: the settable fields, and the server-set ones a mask may name (ignored). */
const ROLE_MASK: MaskRules = { settable: ['displayName', 'description', 'permissions'], outputOnly: roleShape.outputOnly };
/** `{ role }`: what every role write and GetRole answer. */
const ROLE = resourceResponse(roleShape);

/**
 * svc.rbac.v1.RolesService. All roles, the default flag and every member's role set of an
 * organization are one aggregate (`access-<org>`), so "no escalation" and "last admin" are
 * checked against one consistent state and appended with one expected revision.
 */
@Injectable()
export class RolesMethods implements OnModuleInit {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly registry: MethodRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      defineMethod(ROLES, 'CreateRole', { request: CreateRoleRequest, response: ROLE }, 'write', async ({ principal, request }) => {
        const generated = !request.roleId;
        const roleId = request.roleId || randomUUID();
        const state = await this.decide(principal, request, {
          type: 'CreateRole',
          actor: actorOf(principal),
          roleId,
          generated,
          role: { ...request.role },
        });
        return { role: state.roles[`roles/${roleId}`] };
      }),
      getMethod(this.queries, ROLES, 'GetRole', {
        request: NameRequest,
        response: ROLE,
        store: 'roles',
        noun: 'role',
        key: 'role',
        nameOf: (request) => roleName(request.name),
      }),
      listMethod(this.queries, ROLES, 'ListRoles', {
        request: ListRequest,
        spec: { collection: 'roles', filters: roleFilters, orderBy: roleOrderBy, defaultOrder: 'name', softDelete: true },
        key: 'roles',
        response: pageResponse(roleShape),
      }),
      defineMethod(ROLES, 'UpdateRole', { request: UpdateRoleRequest, response: ROLE }, 'write', async ({ principal, request }) => {
        const name = roleName(request.role.name);
        const scope = maskScope(request.updateMask, ROLE_MASK);
        const state = await this.decide(principal, request, { type: 'UpdateRole', actor: actorOf(principal), name, role: { ...request.role }, scope });
        return { role: state.roles[name] };
      }),
      defineMethod(ROLES, 'DeleteRole', { request: NameRequest, response: EmptyResponse }, 'write', async ({ principal, request }) => {
        await this.decide(principal, request, { type: 'DeleteRole', actor: actorOf(principal), name: roleName(request.name) });
        return {};
      }),
      defineMethod(ROLES, 'ListUsersWithPermission', { request: ListUsersWithPermissionRequest, response: ListUsersWithPermissionResponse }, 'read', ({ principal, request }) =>
        this.queries.execute(new ListUsersWithPermissionQuery(principal.org, request)),
      ),
      defineMethod(ROLES, 'SetDefaultRole', { request: NameRequest, response: ROLE }, 'write', async ({ principal, request }) => {
        const name = roleName(request.name);
        const state = await this.decide(principal, request, { type: 'SetDefaultRole', actor: actorOf(principal), name });
        return { role: state.roles[name] };
      }),
      defineMethod(ROLES, 'AssignRoles', { request: AssignRolesRequest, response: AssignRolesResponse }, 'write', async ({ principal, request }) => {
        const state = await this.decide(principal, request, {
          type: 'AssignRoles',
          actor: actorOf(principal),
          user: request.user,
          roles: request.roles,
        });
        return { roles: state.members[request.user] ?? [] };
      }),
    );
  }

  /** Command handling (STYLE.md): every access command acts on its organization's one access stream. */
  private async decide(principal: Principal, request: MutatingRequest, command: AccessCommand): Promise<AccessState> {
    const handled = await this.commands.execute(
      new DecideAndAppend<AccessState, AccessCommand, AccessEvent>(
        { decider: accessDecider, streamId: `access-${principal.org}`, command, context: { actor: command.actor, requestId: request.requestId } },
        ACCESS,
      ),
    );
    return handled.state;
  }
}

export class ListUsersWithPermissionQuery extends Query<ListUsersWithPermissionResponse> {
  constructor(
    readonly org: string,
    readonly request: ListUsersWithPermissionRequest,
  ) {
    super();
  }
}

/** Members whose combined role permissions include the key, by name, keyset-paged on the name. */
@QueryHandler(ListUsersWithPermissionQuery)
export class ListUsersWithPermissionHandler implements IQueryHandler<ListUsersWithPermissionQuery> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ org, request }: ListUsersWithPermissionQuery) {
    if (!isPermission(request.permission)) throw invalid(`permission '${request.permission}' is not a known permission key`);
    const size = pageSize(request.pageSize, { default: 50, max: 1000 });
    const fingerprint = queryFingerprint({ filter: request.permission, orderBy: 'name', showDeleted: false });
    const token = decodePageToken(request.pageToken, fingerprint);
    const after = token ? String(token.after[0]) : '';
    const [members, roles] = await Promise.all([
      this.reads.collection('members').find({ _org: org, name: { $regex: '^users/', ...(after ? { $gt: after } : {}) } }, { sort: { name: 1 } }),
      this.reads.collection('roles').find({ _org: org }),
    ]);
    const records = roles.map((r) => ({ name: String(r.name), permissions: r.permissions as string[], deleteTime: r.deleteTime as string | undefined }));
    const users = members
      .filter((m) => effectivePermissions(m.roles as string[], records).includes(request.permission))
      .map((m) => String(m.name));
    const page = users.slice(0, size);
    const nextPageToken = users.length > size ? encodePageToken({ q: fingerprint, after: [page[page.length - 1]] }) : '';
    return { users: page, nextPageToken };
  }
}

@Module({ providers: [RolesMethods, ListUsersWithPermissionHandler] })
export class RolesModule {}
