/**
 * The contract as a client generator reads it: /openapi.json of a running api through
 * openapi-typescript (its Node API), and a small program using openapi-fetch against it, compiled
 * with the TypeScript compiler under `strict`, no casts. An operation answering an untyped object,
 * a free-form field typed `Record<string, never>` or an array without items fails the compile.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';
import { Stack } from './support/harness';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is JSON read by path
type Json = any;

const ROOT = path.join(__dirname, '..');

/**
 * openapi-typescript's Node API (`openapiTS`, `astToString`) on a document file, writing the types
 * to `out`. It runs in a Node process of its own: its dependencies are ES modules only, which the
 * test runner's CommonJS cannot load.
 */
function generateClientTypes(documentFile: string, out: string): void {
  const script = [
    "import fs from 'node:fs';",
    "import openapiTS, { astToString } from 'openapi-typescript';",
    'const [documentFile, out] = process.argv.slice(1);',
    "fs.writeFileSync(out, astToString(await openapiTS(JSON.parse(fs.readFileSync(documentFile, 'utf8')))));",
  ].join('\n');
  execFileSync(process.execPath, ['--input-type=module', '-e', script, documentFile, out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Uses Write, Read, CreateSession, ListSessions, a roles method, a :history method and GetAuth, reading typed fields of each answer. */
const PROGRAM = `
import createClient from 'openapi-fetch';
import type { paths } from './api';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:1' });

export async function tour(): Promise<string[]> {
  const seen: string[] = [];
  const auth = await client.GET('/v1/auth');
  if (auth.data) {
    const actor: string = auth.data.identity.actor;
    const via: 'basic' | 'bearer' | 'session' = auth.data.evidence.authenticator;
    const keys: string[] = auth.data.permissions ?? [];
    seen.push(actor, via, ...keys);
  }
  if (auth.error) seen.push(auth.error.error.status);

  const created = await client.POST('/svc.nxagent.v2.AgentService/CreateSession', {
    body: { parent: 'agents/a1', inputs: { region: 'eu', retries: 3 }, initial_messages: [{ role: 'user', text: 'hi' }] },
  });
  const session = created.data?.session;
  if (session) {
    const name: string | undefined = session.name;
    const inputs: Record<string, unknown> | undefined = session.inputs;
    seen.push(name ?? '', String(inputs?.region));
  }

  const written = await client.POST('/svc.nxagent.v2.AgentService/Write', {
    body: { session: 'agents/a1/sessions/s1', messages: [{ role: 'user', text: 'more' }] },
  });
  if (written.data) {
    const length: number = written.data.sessionLength;
    seen.push(written.data.session, String(length));
  }

  const read = await client.POST('/svc.nxagent.v2.AgentService/Read', { body: { session: 'agents/a1/sessions/s1', session_offset: 0 } });
  if (read.data) {
    const messages: Record<string, unknown>[] = read.data.messages;
    seen.push(read.data.status, String(read.data.sessionOffset + messages.length));
  }

  const sessions = await client.POST('/svc.nxagent.v2.AgentService/ListSessions', { body: { parent: 'agents/a1', page_size: 10 } });
  for (const s of sessions.data?.sessions ?? []) seen.push(s.name ?? '', s.title ?? '');
  seen.push(sessions.data?.nextPageToken ?? '');

  const role = await client.POST('/svc.rbac.v1.RolesService/CreateRole', { body: { role_id: 'viewer', role: { display_name: 'Viewer', permissions: ['KNOWLEDGE_WRITE'] } } });
  if (role.data) {
    const permissions: string[] = role.data.role.permissions ?? [];
    seen.push(role.data.role.name ?? '', ...permissions);
  }
  const assigned = await client.POST('/svc.rbac.v1.RolesService/AssignRoles', { body: { user: 'users/u1', roles: ['roles/viewer'] } });
  seen.push(...(assigned.data?.roles ?? []));

  const history = await client.GET('/v1/{name_id}:history', { params: { path: { name_id: 'notes' } } });
  for (const event of history.data?.events ?? []) {
    const set: Record<string, unknown> = event.set;
    seen.push(event.type, event.actor, String(event.version), ...event.changedFields, ...Object.keys(set));
  }
  return seen;
}
`;

describe('OpenAPI: a client generated from /openapi.json compiles under strict TypeScript', () => {
  let stack: Stack;
  let document: Json;
  beforeAll(async () => {
    stack = await Stack.start();
    document = (await stack.request<Json>('GET', '/openapi.json', { as: null })).body;
  });
  afterAll(async () => {
    await stack.destroy();
  });

  /** Every operation of the document, with its route. */
  function operations(): { route: string; op: Json }[] {
    return Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([route, item]) =>
      Object.entries(item).map(([verb, op]) => ({ route: `${verb.toUpperCase()} ${route}`, op })),
    );
  }

  it('has servers and a license', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: expect.any(String) })]);
    expect(document.info.license).toEqual({ name: expect.any(String) });
  });

  it('gives every operation a 200 answer with a schema, and every served one a declared shape', () => {
    for (const { route, op } of operations()) {
      const content = op.responses['200']?.content ?? {};
      const [type] = Object.keys(content);
      expect([route, Object.keys(content).length, content[type]?.schema !== undefined]).toEqual([route, 1, true]);
      const schema = content[type].schema;
      // A served JSON answer has fields (an empty answer is `properties: {}`), never just `type: object`.
      if (op['x-implemented'] && type === 'application/json') {
        expect([route, schema.properties !== undefined || schema.$ref !== undefined]).toEqual([route, true]);
      }
    }
  });

  it('allows any properties on a free-form object and gives every array its items', () => {
    const faults: string[] = [];
    const walk = (node: Json, at: string): void => {
      if (Array.isArray(node)) return node.forEach((child, i) => walk(child, `${at}/${i}`));
      if (typeof node !== 'object' || node === null) return;
      const types = [node.type].flat();
      if (types.includes('object') && node.properties === undefined && node.additionalProperties === undefined) faults.push(`object without properties: ${at}`);
      if (types.includes('array') && node.items === undefined) faults.push(`array without items: ${at}`);
      for (const [key, child] of Object.entries(node)) walk(child, `${at}/${key}`);
    };
    walk(document, '#');
    expect(faults).toEqual([]);
  });

  it('declares the streaming routes as text/event-stream, and only them', () => {
    const streams = operations()
      .filter(({ op }) => op.responses['200'].content['text/event-stream'])
      .map(({ op }) => `${op['x-service']}/${op['x-method']}`);
    expect([...new Set(streams)].sort()).toEqual([
      'svc.history.v1.HistoryService/WatchEvents',
      'svc.history.v1.HistoryService/WatchResource',
      'svc.notifications.v1.NotificationService/Subscribe',
    ]);
    expect(streams).toHaveLength(6); // each on its RPC path and its REST path
  });

  it('generates a client that a strict program uses without a cast', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-openapi-client-'));
    try {
      fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(document));
      generateClientTypes(path.join(dir, 'openapi.json'), path.join(dir, 'api.ts'));
      fs.writeFileSync(path.join(dir, 'program.ts'), PROGRAM);
      expect(PROGRAM).not.toMatch(/\bas\b|<any>|!\./);

      const program = ts.createProgram([path.join(dir, 'program.ts')], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.CommonJS,
        moduleResolution: ts.ModuleResolutionKind.Node10,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        types: [],
        skipLibCheck: true,
        // The program lives in a temporary directory: it finds the installed openapi-fetch here.
        baseUrl: dir,
        paths: { 'openapi-fetch': [path.join(ROOT, 'node_modules', 'openapi-fetch')] },
      });
      const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(diagnostics).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
