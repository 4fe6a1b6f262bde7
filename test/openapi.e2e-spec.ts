import * as fs from 'node:fs';
import * as path from 'node:path';
import { SPEC_METHODS, type SpecMethod, specRoutes } from '@svc/contracts/catalog';
import { Stack } from './support/harness';
import { unbuiltRpcMethod } from './support/unbuilt';
import { validateOpenApi } from './support/openapi-validate';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is JSON read by path
type Json = any;

/** The routes a method is served on: the spec's, or its RPC path when the spec shows none (customers v1). */
const routesOf = (m: SpecMethod) => (specRoutes(m).length > 0 ? specRoutes(m) : [`POST /${m.service}/${m.method}`]);

describe('OpenAPI: /openapi.json and /docs from a running api', () => {
  let stack: Stack;
  let document: Json;
  beforeAll(async () => {
    stack = await Stack.start();
    const res = await stack.request<Json>('GET', '/openapi.json', { as: null });
    expect([res.status, res.headers.get('content-type')]).toEqual([200, expect.stringContaining('application/json')]);
    document = res.body;
  });
  afterAll(async () => {
    await stack.destroy();
  });

  /** Operations by `service/Method`, each with the routes the document gives it (catalog spelling). */
  function operations(): Map<string, { routes: string[]; ops: Json[] }> {
    const found = new Map<string, { routes: string[]; ops: Json[] }>();
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      for (const [verb, op] of Object.entries(item)) {
        const key = `${op['x-service']}/${op['x-method']}`;
        const entry = found.get(key) ?? { routes: [], ops: [] };
        entry.routes.push(`${verb.toUpperCase()} ${op['x-path-template'] ?? path}`);
        entry.ops.push(op);
        found.set(key, entry);
      }
    }
    return found;
  }

  it('is served without credentials and is a valid OpenAPI 3.1 document', async () => {
    const result = await validateOpenApi(document);
    expect(result.errors).toEqual([]);
    expect([result.valid, result.version]).toEqual([true, '3.1']);
  });

  it('has every method of the spec catalog with exactly its routes', () => {
    const found = operations();
    for (const m of SPEC_METHODS) {
      const key = `${m.service}/${m.method}`;
      expect([key, found.get(key)?.routes.sort()]).toEqual([key, routesOf(m).sort()]);
    }
    // Nothing else, but for our extensions, each flagged as one.
    expect([...found.values()].filter((entry) => !entry.ops[0]['x-extension']).length).toBe(SPEC_METHODS.length);
  });

  it("says which methods the api serves, as the api answers them, with each served method's request DTO", async () => {
    const found = operations();
    const createNote = found.get('svc.notes.v1.NotesService/CreateNote')!.ops[0];
    expect([createNote['x-implemented'], createNote['x-permission']]).toEqual([true, 'KNOWLEDGE_WRITE']);
    const envelope = document.components.schemas[createNote.requestBody.content['application/json'].schema.$ref.split('/').pop()];
    expect(Object.keys(envelope.properties)).toEqual(expect.arrayContaining(['note', 'note_id', 'request_id']));
    const note = document.components.schemas[envelope.properties.note.$ref.split('/').pop()];
    expect(Object.keys(note.properties)).toEqual(expect.arrayContaining(['display_name', 'tool_name', 'tool_args']));

    // Served by controllers of their own rather than the registry.
    for (const key of ['svc.auth.v1.AuthService/GetAuth', 'svc.artifacts.v1.ArtifactsService/UploadArtifact', 'svc.connections.v1.IntegrationHelpersService/HandleChatEvent']) {
      expect([key, found.get(key)!.ops[0]['x-implemented']]).toEqual([key, true]);
    }
    // Whichever spec method docs/api-coverage.md still says is not started (none: nothing to check).
    const unbuilt = unbuiltRpcMethod();
    if (unbuilt) {
      expect(found.get(`${unbuilt.service}/${unbuilt.method}`)!.ops[0]['x-implemented']).toBe(false);
      expect((await stack.rpc(`${unbuilt.service}/${unbuilt.method}`, {})).status).toBe(501);
    }
  });

  it('documents our extensions too, flagged as such: the REST ones and the RPC-only ones', () => {
    const found = operations();
    const routes = (key: string) => found.get(key)?.routes ?? [];
    expect(routes('svc.history.v1.HistoryService/ListResourceHistory')).toContain('GET /v1/{name=**}:history');
    expect(routes('svc.history.v1.HistoryService/WatchEvents')).toContain('GET /v1/events:watch');
    for (const key of [
      'svc.deployments.v1.DeploymentsService/UpdateDeploymentStatus',
      'svc.deploy_monitor.v1.DeploymentMonitorEvaluationService/RecordDeploymentMonitorEvaluation',
      'svc.rows.v1.RowsService/IngestRows',
    ]) {
      expect([key, routes(key)]).toEqual([key, [`POST /${key}`]]);
      expect([key, found.get(key)!.ops[0]['x-extension'], found.get(key)!.ops[0]['x-implemented']]).toEqual([key, true, true]);
    }
    // A spec method is not an extension.
    expect(found.get('svc.notes.v1.NotesService/CreateNote')!.ops[0]['x-extension']).toBeUndefined();
  });

  it('describes agent SLO answers in snake_case, every other resource in lowerCamelCase', () => {
    const found = operations();
    const answer = (key: string): Json => found.get(key)!.ops[0].responses['200'].content['application/json'].schema;
    const fieldsOf = (resource: Json): string[] =>
      resource.allOf.flatMap((part: Json) => Object.keys(part.$ref ? document.components.schemas[part.$ref.split('/').pop()].properties : part.properties));
    const slo = answer('svc.agentslos.v1.AgentSlosService/GetAgentSlo');
    expect(Object.keys(slo.properties)).toEqual(['agent_slo']);
    expect(fieldsOf(slo.properties.agent_slo)).toEqual(expect.arrayContaining(['display_name', 'target_value', 'create_time']));
    expect(Object.keys(answer('svc.agentslos.v1.AgentSlosService/ListAgentSlos').properties)).toEqual(['agent_slos', 'next_page_token']);
    const note = answer('svc.notes.v1.NotesService/GetNote');
    expect(fieldsOf(note.properties.note)).toEqual(expect.arrayContaining(['displayName', 'createTime']));
  });

  it('marks as served exactly the methods docs/api-coverage.md does not list as not started', () => {
    const rows = [...fs.readFileSync(path.join(__dirname, '..', 'docs', 'api-coverage.md'), 'utf8').matchAll(/^\| `([^`]+)` \| .* \| (done|partial|not started) \|/gm)];
    expect(rows).toHaveLength(SPEC_METHODS.length);
    const found = operations();
    for (const [, key, status] of rows) {
      const op = found.get(key)!.ops[0];
      // A frozen write is answered (FEATURE_READ_ONLY) without an implementation.
      if (op['x-frozen'] && !op['x-implemented']) continue;
      expect([key, op['x-implemented']]).toEqual([key, status !== 'not started']);
    }
  });

  it('gives every served List that takes a filter and an order_by its filterable and orderable fields', () => {
    const requestFields = (op: Json): string[] => {
      // A body (RPC, POST) or query parameters (a REST GET).
      const ref = op.requestBody?.content['application/json'].schema.$ref as string | undefined;
      const body = ref ? Object.keys(document.components.schemas[ref.split('/').pop()!].properties) : [];
      return [...body, ...((op.parameters ?? []) as { name: string }[]).map((p) => p.name)];
    };
    const lists = [...operations()].filter(([key, { ops }]) => /\/List[A-Z]/.test(key) && ops[0]['x-implemented']);
    // Spec part 1, "Single-page results": ListSkillsBundleSkills accepts filter and order_by and ignores them.
    const ignoresQuery = new Set(['svc.skills_bundles.v1.SkillsBundlesService/ListSkillsBundleSkills']);
    const queried = lists.filter(([key, { ops }]) => !ignoresQuery.has(key) && ops.some((op) => requestFields(op).includes('filter')));
    expect(queried.length).toBeGreaterThanOrEqual(20);
    for (const [key, { ops }] of queried) {
      expect([key, Array.isArray(ops[0]['x-filterable']), ops[0]['x-orderable']?.length > 0]).toEqual([key, true, true]);
    }
    const statusEvents = operations().get('svc.deployments.v1.DeploymentsService/ListDeploymentStatusEvents')!.ops[0];
    expect(statusEvents.description).toMatch(/Filter \(AIP-160\) on: .*\(timestamp\)/);
  });

  it('gives each route the credentials its guard takes', () => {
    const found = operations();
    expect(found.get('svc.auth.v1.AuthService/MintAgentSessionToken')!.ops[0].security).toEqual([{ svcWorkload: [] }]);
    expect(found.get('svc.connections.v1.IntegrationHelpersService/HandleChatEvent')!.ops[0].security).toEqual([{ machine: [] }]);
    expect(found.get('svc.auth.v1.AuthService/GetAuth')!.ops[0].security).toEqual([{ basic: [] }, { bearer: [] }, { svcSession: [] }]);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['basic', 'bearer', 'machine', 'svcSession', 'svcWorkload']);
  });

  it('serves a documentation page at /docs that reads /openapi.json from this server', async () => {
    const res = await fetch(`${stack.baseUrl}/docs`);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
    const html = await res.text();
    expect(html).toContain("fetch('/openapi.json')");
    expect(html).not.toMatch(/<script[^>]+src=/);

    // The page's script renders every operation of the served document (streams included), run
    // here against a minimal DOM: an operation it cannot show ends it in 'Could not load'.
    const script = html.match(/<script>([\s\S]*?)<\/script>/)![1];
    const nodes: Record<string, Json> = {};
    const element = (): Json => ({ textContent: '', className: '', style: {}, children: [] as Json[], append(...c: Json[]) { this.children.push(...c); }, addEventListener() {} });
    const fakeDocument = { createElement: element, getElementById: (id: string) => (nodes[id] ??= element()) };
    const run = new Function('document', 'fetch', `return ${script.trim().replace(/;$/, '')};`);
    await run(fakeDocument, async () => ({ json: async () => document }));
    expect(nodes.root.textContent).toBe('');
    const sections = nodes.root.children as Json[];
    const shown = sections.reduce((n: number, section: Json) => n + section.children.length - 1, 0);
    expect(shown).toBe(Object.values(document.paths as Record<string, object>).reduce((n, item) => n + Object.keys(item).length, 0));
  });
});
