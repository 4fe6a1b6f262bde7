import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { CommandBus, type IQueryHandler, Query, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { isPermission } from '@svc/contracts/roles/permissions';
import {
  AssignRolesRequest,
  CreateRoleRequest,
  ListUsersWithPermissionRequest,
  roleFilters,
  roleOrderBy,
  ROLES_SERVICE,
  UpdateRoleRequest,
} from '@svc/contracts/roles/roles.contract';
import { ListRequest, MutatingRequest, NameRequest } from '@svc/contracts/shared/requests';
import { type AccessCommand, accessDecider, type AccessEvent, type AccessState, effectivePermissions } from '@svc/domain/roles/access.decider';
import { invalid } from '@svc/domain/shared/domain-error';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import { decodePageToken, encodePageToken, pageSize, parseUpdateMask, queryFingerprint } from '@svc/infrastructure/query';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { randomUUID } from 'node:crypto';
import { actorOf, type Principal } from '../auth/principal';
import { ExecuteCommand } from '../cqrs/execute.command';
import { GetDocumentQuery, ListDocumentsQuery } from '../cqrs/queries';
import { MethodRegistry, type MethodDefinition } from '../http/method-registry';

/** The projection serving roles and members (checkpoint name). */
const ACCESS = 'access';
const ROLE_NAME = /^roles\/[^/]+$/;

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
    const write = <Req extends object>(method: string, request: new () => Req, handle: MethodDefinition<Req>['handle']) =>
      ({ service: ROLES_SERVICE, method, permission: 'ROLES_WRITE', request, handle }) as MethodDefinition<object>;
    const read = <Req extends object>(method: string, request: new () => Req, handle: MethodDefinition<Req>['handle']) =>
      ({ service: ROLES_SERVICE, method, request, handle }) as MethodDefinition<object>;

    this.registry.register(
      write('CreateRole', CreateRoleRequest, async ({ principal, request }) => {
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
      read('GetRole', NameRequest, async ({ principal, request }) => ({
        role: await this.queries.execute(new GetDocumentQuery('roles', principal.org, roleName(request.name), 'role')),
      })),
      read('ListRoles', ListRequest, async ({ principal, request }) => {
        const page = await this.queries.execute(
          new ListDocumentsQuery(
            { collection: 'roles', filters: roleFilters, orderBy: roleOrderBy, defaultOrder: 'name', softDelete: true },
            principal.org,
            request,
          ),
        );
        return { roles: page.items, nextPageToken: page.nextPageToken };
      }),
      write('UpdateRole', UpdateRoleRequest, async ({ principal, request }) => {
        const name = roleName(request.role.name);
        const scope = parseUpdateMask(request.updateMask, {
          settable: ['displayName', 'description', 'permissions'],
          outputOnly: ['name', 'system', 'isDefault', 'createTime', 'updateTime', 'deleteTime'],
        });
        const state = await this.decide(principal, request, { type: 'UpdateRole', actor: actorOf(principal), name, role: { ...request.role }, scope });
        return { role: state.roles[name] };
      }),
      write('DeleteRole', NameRequest, async ({ principal, request }) => {
        await this.decide(principal, request, { type: 'DeleteRole', actor: actorOf(principal), name: roleName(request.name) });
        return {};
      }),
      read('ListUsersWithPermission', ListUsersWithPermissionRequest, ({ principal, request }) =>
        this.queries.execute(new ListUsersWithPermissionQuery(principal.org, request)),
      ),
      write('SetDefaultRole', NameRequest, async ({ principal, request }) => {
        const name = roleName(request.name);
        const state = await this.decide(principal, request, { type: 'SetDefaultRole', actor: actorOf(principal), name });
        return { role: state.roles[name] };
      }),
      write('AssignRoles', AssignRolesRequest, async ({ principal, request }) => {
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

  private async decide(principal: Principal, request: MutatingRequest, command: AccessCommand): Promise<AccessState> {
    const result = await this.commands.execute(
      new ExecuteCommand<AccessState, AccessCommand, AccessEvent>(
        { decider: accessDecider, streamId: `access-${principal.org}`, command, context: { actor: command.actor, requestId: request.requestId } },
        ACCESS,
      ),
    );
    return result.state;
  }
}

function roleName(name: unknown): string {
  if (typeof name !== 'string' || !ROLE_NAME.test(name)) throw invalid(`name must look like 'roles/{role_id}', got '${String(name ?? '')}'`);
  return name;
}

export class ListUsersWithPermissionQuery extends Query<{ users: string[]; nextPageToken: string }> {
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
