import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { SPEC_METHODS, type SpecMethod, specRoutes } from '@svc/contracts/catalog';
import { notesApi } from '@svc/contracts/notes/notes.contract';
import { ListRequest, NameRequest } from '@svc/contracts/shared/requests';
import { EVENT_STREAM, IsResource } from '@svc/contracts/shared/responses';
import { sessionsApi } from '@svc/contracts/sessions/sessions.contract';
import { validateOpenApi } from '../../../../test/support/openapi-validate';
import { AREAS } from '@svc/application/areas';
import { type DocumentedMethod, openApiDocument } from './openapi-document';

class Inner {
  @IsString() @MaxLength(20) displayName!: string;
}
class Outer {
  @IsOptional() @IsIn(['A', 'B']) kind?: string;
  @ValidateNested() @Type(() => Inner) innerThing!: Inner;
  @IsOptional() @IsString({ each: true }) tagNames?: string[];
}

/** A declared answer: scalars, a free-form object, an untyped array and a resource by its declaration. */
class WriteAnswer {
  @IsString() session!: string;
  @IsInt() sessionLength!: number;
  @IsOptional() @IsObject() inputs?: Record<string, unknown>;
  @IsOptional() @IsArray() messages?: unknown[];
  @IsOptional() @IsResource(() => sessionsApi) created?: Record<string, unknown>;
}

const served = new Map<string, DocumentedMethod>([
  ['svc.nxagent.v2.AgentService/Write', { service: sessionsApi.service, method: 'Write', request: ListRequest, response: WriteAnswer }],
  ['svc.notifications.v1.NotificationService/Subscribe', { service: 'svc.notifications.v1.NotificationService', method: 'Subscribe', request: ListRequest, response: EVENT_STREAM }],
  ['svc.notes.v1.NotesService/ListNotes', { service: notesApi.service, method: 'ListNotes', request: ListRequest }],
  [
    'svc.rbac.v1.RolesService/ListRoles',
    {
      service: 'svc.rbac.v1.RolesService',
      method: 'ListRoles',
      request: ListRequest,
      query: { filters: { title: { type: 'string', path: 'title' } }, orderBy: { title: 'title' }, defaultOrder: 'title', nameSortable: false },
    },
  ],
  ['svc.notes.v1.NotesService/DeleteNote', { service: notesApi.service, method: 'DeleteNote', request: NameRequest, permission: 'KNOWLEDGE_WRITE' }],
  ['svc.notes.v1.NotesService/CreateNote', { service: notesApi.service, method: 'CreateNote', request: Outer, permission: 'KNOWLEDGE_WRITE' }],
]);
const resources = AREAS.flatMap((a) => a.resources.map((r) => r.api));
const document = openApiDocument({ methods: SPEC_METHODS, served, resources, version: 'test', license: 'UNLICENSED' }) as any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON document read by path

/** The operation of a route as the catalog writes it (`GET /v1/{name=indicators/*}`), found by its x-path-template. */
function operationOf(route: string): { verb: string; op: Record<string, any> } | undefined {
  const [verb, template] = route.split(' ');
  for (const item of Object.values(document.paths) as Record<string, any>[]) {
    const op = item[verb.toLowerCase()];
    if (op && (op['x-path-template'] === template || (template.startsWith('/svc.') && template === `/${op['x-service']}/${op['x-method']}`))) return { verb, op };
  }
  return undefined;
}

/** The routes a method is served on: the spec's, or its RPC path when the spec shows none (customers v1). */
const routesOf = (m: SpecMethod) => (specRoutes(m).length > 0 ? specRoutes(m) : [`POST /${m.service}/${m.method}`]);

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validateOpenApi(document);
    expect(result.errors).toEqual([]);
    expect([result.valid, result.version]).toEqual([true, '3.1']);
  });

  it('has every route of every catalog method, named by its method', () => {
    for (const m of SPEC_METHODS) {
      for (const route of routesOf(m)) {
        const found = operationOf(route);
        expect([route, found?.op['x-method'], found?.op['x-service']]).toEqual([route, m.method, m.service]);
      }
    }
  });

  it('gives each request its DTO schema in snake_case, nested DTOs included, and the validator limits', () => {
    const create = operationOf('POST /svc.notes.v1.NotesService/CreateNote')!.op;
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Outer' });
    expect(document.components.schemas.Outer).toEqual({
      type: 'object',
      properties: {
        kind: { enum: ['A', 'B'] },
        inner_thing: { $ref: '#/components/schemas/Inner' },
        tag_names: { type: 'array', items: { type: 'string' } },
      },
      required: ['inner_thing'],
    });
    expect(document.components.schemas.Inner).toEqual({ type: 'object', properties: { display_name: { type: 'string', maxLength: 20 } }, required: ['display_name'] });
  });

  it('answers resources in lowerCamelCase under their response key', () => {
    const schema = operationOf('POST /svc.notes.v1.NotesService/GetNote')!.op.responses['200'].content['application/json'].schema;
    expect(schema.required).toEqual(['note']);
    const [fields, serverSet] = schema.properties.note.allOf;
    expect(Object.keys(document.components.schemas[fields.$ref.split('/').pop()].properties)).toContain('displayName');
    expect(Object.keys(serverSet.properties)).toEqual(expect.arrayContaining(['name', 'createTime', 'updateTime']));
  });

  it('answers a declared response: free-form objects open, arrays with items, resources as the resource kit answers them', () => {
    const schema = operationOf('POST /svc.nxagent.v2.AgentService/Write')!.op.responses['200'].content['application/json'].schema;
    expect(schema.required).toEqual(['session', 'sessionLength']);
    expect(schema.properties.inputs).toEqual({ type: 'object', additionalProperties: true });
    expect(schema.properties.messages).toEqual({ type: 'array', items: {} });
    const [fields, serverSet] = schema.properties.created.allOf;
    expect(fields).toEqual({ $ref: '#/components/schemas/SessionFields' });
    expect(Object.keys(serverSet.properties)).toEqual(expect.arrayContaining(['name', 'createTime']));
    // The same resource answered by a kit method (GetSession) is the same schema.
    const get = operationOf('POST /svc.nxagent.v2.AgentService/GetSession')!.op.responses['200'].content['application/json'].schema;
    expect(get.properties.session.allOf[0]).toEqual(fields);
  });

  it('declares an event stream as text/event-stream, and the document has servers and a license', () => {
    const subscribe = operationOf('POST /svc.notifications.v1.NotificationService/Subscribe')!.op;
    expect(Object.keys(subscribe.responses['200'].content)).toEqual(['text/event-stream']);
    expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(document.info.license).toEqual({ name: 'UNLICENSED' });
  });

  it("lists each List's filterable and orderable fields and each method's permission", () => {
    const list = operationOf('POST /svc.notes.v1.NotesService/ListNotes')!.op;
    expect(list['x-filterable']).toEqual(expect.arrayContaining([{ field: 'tool_name', type: 'string' }, { field: 'create_time', type: 'timestamp' }]));
    expect(list['x-orderable']).toEqual(expect.arrayContaining(['display_name', 'create_time', 'name']));
    expect(list.description).toContain('tool_name (string)');
    // A List outside the resource kit declares its fields on its method definition (listMethod).
    const roles = operationOf('POST /svc.rbac.v1.RolesService/ListRoles')!.op;
    expect([roles['x-filterable'], roles['x-orderable'], roles['x-default-order']]).toEqual([[{ field: 'title', type: 'string' }], ['title'], 'title']);
    const remove = operationOf('POST /svc.notes.v1.NotesService/DeleteNote')!.op;
    expect(remove['x-permission']).toBe('KNOWLEDGE_WRITE');
    expect(remove.description).toContain('Requires the KNOWLEDGE_WRITE permission');
  });

  it('refers every operation to the one error shape for 4xx and 5xx', () => {
    for (const item of Object.values(document.paths) as Record<string, any>[]) {
      for (const op of Object.values(item)) {
        expect([op.operationId, op.responses['4XX'], op.responses['5XX']]).toEqual([op.operationId, { $ref: '#/components/responses/Error' }, { $ref: '#/components/responses/Error' }]);
      }
    }
    expect(document.components.schemas.Error.properties.error.required).toEqual(['code', 'status', 'message']);
  });

  it('marks frozen and unbuilt methods, and maps AIP path templates to one parameter per segment', () => {
    const frozen = SPEC_METHODS.find((m) => m.frozen && m.rest?.[0].includes('{name=services/*/dimensions/*}'))!;
    const { op } = operationOf(frozen.rest![0])!;
    expect(op['x-frozen']).toBe(true);
    expect(op.description).toContain('FEATURE_READ_ONLY');
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(['services_id', 'dimensions_id']);
    const unbuilt = operationOf('POST /svc.rbac.v1.RolesService/CreateRole')!.op;
    expect([unbuilt['x-implemented'], unbuilt.description]).toEqual([false, expect.stringContaining('UNIMPLEMENTED')]);
    expect(new Set(Object.values(document.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId))).size).toBe(
      SPEC_METHODS.reduce((n, m) => n + routesOf(m).length, 0),
    );
  });
});
