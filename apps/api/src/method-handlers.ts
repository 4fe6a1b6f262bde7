/**
 * docs/method-handlers.md: which code serves each method, read from the method registry of a booted
 * api (every module registers its methods at startup, so the registry is the only complete map).
 * `npm run docs:handlers` rewrites the file; method-handlers.spec.ts fails when it is stale.
 *
 * Per method: its routes (the catalog), where it was registered (the registry's record of the
 * caller), the handler (the builder that made it, or what the registered closure calls), the
 * request DTO, and what it appends or reads: declared by the builder where one made it (the resource
 * kit, Get and List over a read model), else the commands, events, queries and read models that
 * the handler's code and the one method it delegates to name.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { SPEC_METHODS, specMethodKey, specRoutes, type SpecMethod } from '@svc/contracts/catalog';
import { loadSettings } from '@svc/infrastructure/config/env';
import { appModule } from './app.module';
import { EXTENSION_ROUTES } from './history/extension-routes';
import { MethodRegistry, type MethodDefinition, type RegistrationSite } from './http/method-registry';

export const METHOD_HANDLERS_DOC = 'docs/method-handlers.md';

/** One row: everything a reader needs to find the code behind a method. */
export interface HandlerRow {
  key: string;
  part: SpecMethod['part'] | 'extension';
  routes: string[];
  site?: RegistrationSite;
  handler: string;
  request?: string;
  permission?: string;
  appends: string[];
  reads: string[];
  status: 'served' | 'frozen (refused)' | 'not implemented';
}

/** Boots the api's modules against an empty data directory (no HTTP, no projector) and reads the registry. */
export async function handlerRows(): Promise<HandlerRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-handlers-'));
  // A tool's run, not a server's: startup lines would only bury its output.
  Logger.overrideLogger(false);
  const app = await NestFactory.createApplicationContext(appModule(loadSettings({ SVC_DATA_DIR: dir, SVC_PROJECTOR: 'off' })), { logger: false });
  try {
    const registry = app.get(MethodRegistry);
    const instances = providerInstances(app.get(ModulesContainer));
    return rowsOf(registry, instances);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every provider instance by its class name (the registration sites name classes). */
function providerInstances(container: ModulesContainer): Map<string, object> {
  const byName = new Map<string, object>();
  for (const module of container.values()) {
    for (const wrapper of module.providers.values()) {
      const instance = wrapper.instance as object | undefined;
      if (instance && typeof instance === 'object' && !byName.has(instance.constructor.name)) byName.set(instance.constructor.name, instance);
    }
  }
  return byName;
}

function rowsOf(registry: MethodRegistry, instances: Map<string, object>): HandlerRow[] {
  const definitions = new Map(registry.definitions().map((d) => [specMethodKey(d), d]));
  const rows: HandlerRow[] = SPEC_METHODS.map((m) => {
    const key = specMethodKey(m);
    const d = definitions.get(key);
    definitions.delete(key);
    if (!d) return { key, part: m.part, routes: specRoutes(m), handler: '', appends: [], reads: [], status: m.frozen ? 'frozen (refused)' : 'not implemented' };
    return rowOf(key, m.part, specRoutes(m), d, registry.siteOf(key), instances);
  });
  // Methods beyond the catalog (the REST extensions, our RPC-only writes), by key.
  const extensions = new Map(EXTENSION_ROUTES.map((m) => [specMethodKey(m), m]));
  for (const [key, d] of [...definitions].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const extension = extensions.get(key);
    rows.push(rowOf(key, 'extension', extension ? specRoutes(extension) : [`POST /${key}`], d, registry.siteOf(key), instances));
  }
  return rows;
}

function rowOf(key: string, part: HandlerRow['part'], routes: string[], d: MethodDefinition, site: RegistrationSite | undefined, instances: Map<string, object>): HandlerRow {
  // V8 may name the frame `Class.register [as onModuleInit]`: the method Nest called is the one to show.
  if (site) site = { ...site, symbol: site.symbol.replace(/^([^.\s]+)\.\S+ \[as ([^\]]+)\]$/, '$1.$2') };
  // The kit builds a resource's Create and Update DTOs at runtime (request-envelopes.ts); the OpenAPI document names them the same way.
  const request = d.request.name === 'Envelope' ? `${d.method}Request (kit envelope)` : d.request.name;
  const base = { key, part, routes, site, request, permission: d.permission, status: 'served' as const };
  if (d.effect?.builder) return { ...base, handler: d.effect.builder, appends: [...(d.effect.appends ?? [])], reads: [...(d.effect.reads ?? [])] };
  const owner = site && instances.get(site.symbol.split('.')[0]);
  const code = String(d.handle);
  const delegates = delegatesOf(code, owner);
  const named = namedEffects([code, ...delegates.map((x) => x.code)].join('\n'));
  return {
    ...base,
    handler: delegates.length ? `closure → ${delegates.map((x) => x.name).join(', ')}` : 'closure',
    appends: [...(d.effect?.appends ?? []), ...named.appends],
    reads: [...(d.effect?.reads ?? []), ...named.reads],
  };
}

/** Calls that only plumb (the caller's actor, errors, the registry itself): they name no use case. */
const PLUMBING = new Set(['registry', 'logger', 'settings', 'randomUUID', 'actorOf', 'invalid', 'notFound', 'permissionDenied', 'failedPrecondition']);
/** Delegates shown per closure: the first ones it calls, which is where its work is. */
const MAX_DELEGATES = 3;

/**
 * What the closure calls, in order: methods of its owner or of what the owner holds (`this.write`,
 * `this.streams.open`, named by the class that has them, with their code: one hop, enough to reach
 * the command or query they send) and imported functions (`readHistory`). Both compilers write an
 * imported call as `(0, module.fn)(`, so the names match whichever built the code.
 */
function delegatesOf(code: string, owner: object | undefined): Array<{ name: string; code: string }> {
  const found = new Map<string, string>();
  for (const [, first, second, imported] of code.matchAll(/\bthis\.([A-Za-z_$][\w$]*)(?:\.([A-Za-z_$][\w$]*))?\(|\(0, [\w$]+\.([A-Za-z_$][\w$]*)\)\(/g)) {
    if (found.size >= MAX_DELEGATES) break;
    if (imported) {
      if (!PLUMBING.has(imported)) found.set(imported, found.get(imported) ?? '');
      continue;
    }
    if (PLUMBING.has(first)) continue;
    const target = second ? (owner as Record<string, unknown> | undefined)?.[first] : owner;
    const method = second ?? first;
    const fn = target && typeof target === 'object' ? (target as Record<string, unknown>)[method] : undefined;
    const name = target && typeof target === 'object' ? `${target.constructor.name}.${method}` : `this.${first}${second ? `.${second}` : ''}`;
    if (!found.has(name)) found.set(name, typeof fn === 'function' ? String(fn) : '');
  }
  return [...found].map(([name, body]) => ({ name, code: body }));
}

/**
 * What the code names, spelled the same whichever compiler built it (tsc for `npm run`, SWC under
 * jest): commands on the bus and their `type`s, resource commands, queries, and read-model collections.
 */
function namedEffects(code: string): { appends: string[]; reads: string[] } {
  const appends = new Set<string>();
  const reads = new Set<string>();
  for (const [, name] of code.matchAll(/\bnew (?:[\w$]+\.)?([A-Z][\w$]*(?:Command|Query)|DecideAndAppend|ClaimUniqueValues)\b/g)) {
    (name.endsWith('Query') ? reads : appends).add(name);
  }
  for (const [, type] of code.matchAll(/\btype: ['"]([A-Z][A-Za-z]+)['"]/g)) appends.add(`command ${type}`);
  for (const [, store] of code.matchAll(/\.collection\((?:[\w$]+\.)?([\w$]+|'[^']+'|"[^"]+")\)/g)) reads.add(store.replace(/['"]/g, ''));
  return { appends: [...appends].sort(), reads: [...reads].sort() };
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');
const code = (text: string): string => `\`${cell(text)}\``;

export function handlersMarkdown(rows: readonly HandlerRow[]): string {
  const lines = [
    '# Method handlers',
    '',
    '<!-- Generated by `npm run docs:handlers` from the method registry of a booted api (apps/api/src/method-handlers.ts). Do not edit: apps/api/src/method-handlers.spec.ts fails when it is stale. -->',
    '',
    'Which code serves each method. **Registered in**: the file and function that registered the method',
    'at startup. **Handler**: the builder that made it (the resource kit, `getMethod`, `listMethod`), or',
    'for a closure, the method it calls (`closure → SessionsMethods.write`). **Appends / reads**: declared',
    'by the builder, else what the closure and that one method name: commands sent on the command bus',
    '(`DecideAndAppend`) and their `type`, queries, and read-model collections (a constant\'s name where',
    'the code uses one). Status and proving tests are in [api-coverage.md](api-coverage.md).',
    '',
  ];
  const groups: Array<[HandlerRow['part'], string]> = [
    [1, 'Part 1'],
    [2, 'Part 2'],
    [3, 'Part 3'],
    ['extension', 'Beyond the catalog (served on their RPC path, or the REST extensions)'],
  ];
  for (const [part, title] of groups) {
    const rows_ = rows.filter((r) => r.part === part);
    if (rows_.length === 0) continue;
    lines.push(`## ${title}`, '', '| Method | Routes | Registered in | Handler | Request | Appends / reads |', '|---|---|---|---|---|---|');
    for (const r of rows_) {
      const site = r.site ? `${code(r.site.file)}<br>${code(r.site.symbol)}` : r.status;
      const effect = [...r.appends.map((a) => `appends ${code(a)}`), ...r.reads.map((s) => `reads ${code(s)}`)].join('<br>');
      const request = r.request ? `${code(r.request)}${r.permission ? `<br>needs ${code(r.permission)}` : ''}` : '';
      lines.push(`| ${code(r.key)} | ${r.routes.map(code).join('<br>') || 'not shown'} | ${site} | ${cell(r.handler)} | ${request} | ${effect} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
