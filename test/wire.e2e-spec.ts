import * as net from 'node:net';
import { ALICE, REQUEST_INFO, Stack } from './support/harness';
import { unbuiltRestMethod, unbuiltRpcMethod } from './support/unbuilt';

const NOTES = 'svc.notes.v1.NotesService';

/** Every failure leaves in the one error shape with the standard code mapping; never a stack trace. */
describe('wire: errors, routes and casing', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ env: { SVC_BODY_LIMIT_BYTES: '4096' } });
  });
  afterAll(async () => {
    await stack.destroy();
  });

  const expectError = (res: { status: number; body: unknown }, code: number, status: string, message?: RegExp) => {
    expect(res.status).toBe(code);
    expect(res.body).toEqual({ error: { code, status, message: expect.any(String), details: expect.any(Array) } });
    const error = (res.body as { error: { message: string } }).error;
    if (message) expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(/\bat .*\.js:\d+/);
  };

  it('malformed JSON is INVALID_ARGUMENT', async () => {
    const res = await stack.request('POST', `/${NOTES}/ListNotes`, { rawBody: '{"filter": ' });
    expectError(res, 400, 'INVALID_ARGUMENT', /JSON/);
  });

  it('a body that is not an object is INVALID_ARGUMENT', async () => {
    expectError(await stack.request('POST', `/${NOTES}/ListNotes`, { rawBody: '[1,2]' }), 400, 'INVALID_ARGUMENT');
    expectError(await stack.request('POST', `/${NOTES}/ListNotes`, { rawBody: '"text"' }), 400, 'INVALID_ARGUMENT');
  });

  it('wrong field types are INVALID_ARGUMENT naming the field in snake_case', async () => {
    expectError(await stack.rpc(`${NOTES}/ListNotes`, { page_size: 'many' }), 400, 'INVALID_ARGUMENT', /page_size/);
    expectError(await stack.rpc(`${NOTES}/ListNotes`, { show_deleted: 'yes' }), 400, 'INVALID_ARGUMENT', /show_deleted/);
    expectError(await stack.rpc(`${NOTES}/GetNote`, { name: 7 }), 400, 'INVALID_ARGUMENT', /name/);
    expectError(await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'x', note: 'not an object' }), 400, 'INVALID_ARGUMENT', /note/);
  });

  it('64-bit integers may arrive as strings', async () => {
    const res = await stack.rpc<{ notes: unknown[] }>(`${NOTES}/ListNotes`, { page_size: '5' });
    expect(res.status).toBe(200);
  });

  it('an oversized body is INVALID_ARGUMENT and writes nothing', async () => {
    const res = await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'huge', note: { notes: 'x'.repeat(10_000) } });
    expectError(res, 400, 'INVALID_ARGUMENT', /too large/);
    expect((await stack.rpc(`${NOTES}/GetNote`, { name: 'notes/huge' })).status).toBe(404);
  });

  it('a non-JSON content type is INVALID_ARGUMENT', async () => {
    const res = await stack.request('POST', `/${NOTES}/ListNotes`, { rawBody: 'filter=x', headers: { 'content-type': 'text/plain' } });
    expectError(res, 400, 'INVALID_ARGUMENT');
  });

  it('unknown routes: NOT_FOUND for what the spec does not have, UNIMPLEMENTED for spec methods not built yet', async () => {
    expectError(await stack.request('GET', '/no/such/route'), 404, 'NOT_FOUND');
    expectError(await stack.rpc('svc.nothing.v1.NopeService/Nope', {}), 404, 'NOT_FOUND');
    expectError(await stack.rpc(`${NOTES}/FrobnicateNote`, {}), 404, 'NOT_FOUND');
    // A spec method no issue has built yet, whichever docs/api-coverage.md still says is not started.
    const unbuilt = unbuiltRpcMethod();
    if (unbuilt) expectError(await stack.rpc(`${unbuilt.service}/${unbuilt.method}`, {}), 501, 'UNIMPLEMENTED');
  });

  it('REST aliases route by the spec\'s path templates; REST-only methods have no RPC form', async () => {
    expectError(await stack.request('GET', '/v1/no-such-collection'), 404, 'NOT_FOUND');
    // A REST-only method not built yet, whichever docs/api-coverage.md still says is not started.
    const unbuilt = unbuiltRestMethod();
    if (unbuilt) {
      expectError(await stack.request('POST', unbuilt.path, { body: {} }), 501, 'UNIMPLEMENTED');
      expectError(await stack.request('GET', unbuilt.path), 404, 'NOT_FOUND', /not supported/);
      expectError(await stack.rpc(`${unbuilt.method.service}/${unbuilt.method.method}`, {}), 404, 'NOT_FOUND', /POST \/v1/);
      expectError(await stack.request('POST', unbuilt.path, { body: {}, as: null }), 401, 'UNAUTHENTICATED');
    }
    // A built REST-only method has no RPC form either.
    expectError(await stack.rpc('svc.connections.v1.IntegrationHelpersService/ListRepositories', {}), 404, 'NOT_FOUND', /POST \/v1/);
  });

  it('every write of a frozen feature is FAILED_PRECONDITION with reason FEATURE_READ_ONLY', async () => {
    const frozen = [
      ['POST', '/v1/catalog/services'],
      ['PATCH', '/v1/catalog/services/checkout'],
      ['DELETE', '/v1/catalog/services/checkout/dimensions/region'],
      ['POST', '/v1/catalog/services/checkout:accept'],
      ['DELETE', '/v2/indicators-v2/latency'],
    ];
    for (const [verb, path] of frozen) {
      const res = await stack.request(verb, path, { body: verb === 'DELETE' ? undefined : {} });
      expectError(res, 400, 'FAILED_PRECONDITION', /read-only/);
      expect((res.body as { error: { details: unknown[] } }).error.details).toEqual([
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'FEATURE_READ_ONLY', domain: 'svc', metadata: {} },
        REQUEST_INFO,
      ]);
    }
  });

  it('missing credentials are UNAUTHENTICATED on every method; health needs none', async () => {
    expectError(await stack.rpc(`${NOTES}/ListNotes`, {}, null), 401, 'UNAUTHENTICATED');
    expect((await stack.request('GET', '/healthz', { as: null })).status).toBe(200);
  });

  it('an unknown request field is ignored; responses are lowerCamelCase', async () => {
    const res = await stack.rpc<{ note: Record<string, unknown> }>(`${NOTES}/CreateNote`, {
      note_id: 'cased',
      note: { display_name: 'Cased', tool_name: 'x', tool_args: { nested_key: { deeper_key: 1 } } },
      surprise_field: true,
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.note).sort()).toEqual(['createTime', 'displayName', 'name', 'toolArgs', 'toolName', 'updateTime']);
    expect(res.body.note.toolArgs).toEqual({ nestedKey: { deeperKey: 1 } });
  });

  it('writes accept only JSON: a form or text body is INVALID_ARGUMENT and writes nothing', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const res = await stack.request('POST', `/${NOTES}/CreateNote`, { rawBody: 'note_id=form&note=x', headers: { 'content-type': type } });
      expectError(res, 400, 'INVALID_ARGUMENT', /application\/json/);
    }
    const rest = await stack.request('DELETE', '/v1/catalog/services/checkout', { rawBody: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectError(rest, 400, 'INVALID_ARGUMENT', /application\/json/);
    expect((await stack.rpc(`${NOTES}/GetNote`, { name: 'notes/form' })).status).toBe(404);
    // GET routes keep their query parameters.
    expect((await stack.request('GET', '/v1/connections?pageSize=1')).status).toBe(200);
  });

  it('JSON null on a request field means unset', async () => {
    const res = await stack.rpc(`${NOTES}/ListNotes`, { order_by: null, filter: null, page_size: null, page_token: null, show_deleted: null });
    expect(res.status).toBe(200);
  });

  it('refuses lone surrogates, NUL, __proto__ keys and deep nesting, naming the field', async () => {
    const create = (raw: string) => stack.request('POST', `/${NOTES}/CreateNote`, { rawBody: raw });
    expectError(await create('{"request_id":"\\ud800","note_id":"s1","note":{}}'), 400, 'INVALID_ARGUMENT', /request_id is not well-formed Unicode/);
    expectError(await create('{"note_id":"s2","note":{"display_name":"a\\u0000b"}}'), 400, 'INVALID_ARGUMENT', /display_name contains a NUL/);
    expectError(await create('{"note_id":"s3","note":{"tool_args":{"__proto__":{"x":1}}}}'), 400, 'INVALID_ARGUMENT', /'__proto__'/);
    expectError(await create(`{"note_id":"s4","note":{"tool_args":${'['.repeat(1000)}${']'.repeat(1000)}}}`), 400, 'INVALID_ARGUMENT', /nested more than 32/);
    for (const id of ['s1', 's2', 's3', 's4']) expect((await stack.rpc(`${NOTES}/GetNote`, { name: `notes/${id}` })).status).toBe(404);
  });

  it('keys named like toString, valueOf, hasOwnProperty or constructor are stored and read back like any other', async () => {
    const keys = { toString: 't', valueOf: 'v', hasOwnProperty: 'h', constructor: 'c', isPrototypeOf: 'i' };
    const created = await stack.rpc<{ note: { toolArgs: unknown } }>(`${NOTES}/CreateNote`, {
      note_id: 'protoish',
      note: { display_name: 'Proto', tool_args: { ...keys, nested: { constructor: { prototype: { x: 1 } } } } },
    });
    expect(created.status).toBe(200);
    const note = await stack.rpc<{ note: { toolArgs: unknown } }>(`${NOTES}/GetNote`, { name: 'notes/protoish' });
    expect(note.body.note.toolArgs).toEqual({ ...keys, nested: { constructor: { prototype: { x: 1 } } } });

    const deployments = 'svc.deployments.v1.DeploymentsService';
    const labels = { toString: 't', valueOf: 'v', hasOwnProperty: 'h', constructor: 'c', environment: 'prod' };
    expect((await stack.rpc(`${deployments}/CreateDeployment`, { deployment_id: 'protoish', deployment: { labels } })).status).toBe(200);
    const deployment = await stack.rpc<{ deployment: { labels: unknown } }>(`${deployments}/GetDeployment`, { name: 'deployments/protoish' });
    expect(deployment.body.deployment.labels).toEqual(labels);
  });

  it('loose types are refused: booleans for integers, 64-bit integers in other forms, invalid times on a re-record', async () => {
    expectError(await stack.rpc(`${NOTES}/ListNotes`, { page_size: true }), 400, 'INVALID_ARGUMENT', /page_size/);
    expectError(await stack.rpc(`${NOTES}/ListNotes`, { page_size: '0x10' }), 400, 'INVALID_ARGUMENT', /page_size/);
    const evaluations = 'svc.deploy_monitor.v1.DeploymentMonitorEvaluationService/RecordDeploymentMonitorEvaluation';
    const record = (evaluation: Record<string, unknown>) =>
      stack.rpc(evaluations, { deployment_monitor_evaluation_id: 'loose', deployment_monitor_evaluation: evaluation });
    expectError(await record({ pr_number: true }), 400, 'INVALID_ARGUMENT', /pr_number must be an integer/);
    const first = await record({ pr_number: '42', deployment_time: '2024-05-01T10:00:00Z' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ evaluation: { prNumber: 42 } });
    expectError(await record({ deployment_time: 'noon' }), 400, 'INVALID_ARGUMENT', /deployment_time must be an RFC 3339 timestamp/);
  });

  it("Fastify's own refusals answer in the error shape: a malformed URL, oversized headers", async () => {
    expectError(await stack.request('GET', '/v1/connections/%'), 400, 'INVALID_ARGUMENT', /malformed %-escape/);
    expectError(await stack.request('GET', '/v1/connections', { headers: { 'x-padding': 'a'.repeat(20_000) } }), 400, 'INVALID_ARGUMENT', /headers are too large/);
    // A request Node's HTTP parser cannot read at all is answered on the socket, in the same shape.
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(stack.baseUrl).port), '127.0.0.1', () => socket.write('GARBAGE\r\n\r\n'));
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expectError({ status: 400, body: JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) }, 400, 'INVALID_ARGUMENT', /malformed HTTP request/);
  });

  it('error messages quote at most 64 characters of an input', async () => {
    const res = await stack.rpc(`${NOTES}/GetNote`, { name: 'x'.repeat(2000) });
    expectError(res, 400, 'INVALID_ARGUMENT', new RegExp(`got '${'x'.repeat(64)}…'`));
    expect((res.body as { error: { message: string } }).error.message.length).toBeLessThan(200);
  });

  it('FAILED_PRECONDITION answers 400 in the same shape', async () => {
    // The Admin role is a system role: editing it is refused.
    const res = await stack.rpc('svc.rbac.v1.RolesService/UpdateRole', { role: { name: 'roles/admin', display_name: 'x' } }, ALICE);
    expectError(res, 400, 'FAILED_PRECONDITION');
  });
});
