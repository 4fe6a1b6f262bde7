/**
 * The import graph, checked statically: no module cycle anywhere in apps/, libs/ and bench/, no app
 * (or the bench) reaching inside another app (what two apps share lives in libs/), and the layers in
 * order: apps over libs/application (the use cases both processes import) over libs/infrastructure
 * (ports and adapters) over libs/domain and libs/contracts (pure; no I/O package).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '..');
const APPS = ['api', 'projector', 'cli'];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return file.endsWith('.ts') && !file.endsWith('.spec.ts') && !file.endsWith('.d.ts') ? [file] : [];
  });
}

function resolve(from: string, specifier: string): string | null {
  const alias = /^@svc\/(contracts|domain|infrastructure|application)(?:\/(.*))?$/.exec(specifier);
  const base = alias ? path.join(ROOT, 'libs', alias[1], 'src', alias[2] ?? '') : specifier.startsWith('.') ? path.resolve(path.dirname(from), specifier) : null;
  if (base === null) return null;
  return [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate)) ?? null;
}

/** Each file's local imports (type-only ones too: a cycle of types is still a tangle to read). */
const graph = new Map<string, string[]>();
for (const file of ['apps', 'libs', 'bench'].flatMap((dir) => sources(path.join(ROOT, dir)))) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
  const imports: string[] = [];
  source.forEachChild((node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const target = resolve(file, node.moduleSpecifier.text);
      if (target) imports.push(target);
    }
  });
  graph.set(file, imports);
}
const rel = (file: string) => path.relative(ROOT, file);

/** One cycle through each strongly connected group of files (Tarjan), as paths. */
function cycles(): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(rel(w));
    } while (w !== v);
    if (group.length > 1) found.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('imports', () => {
  it('form no cycle', () => {
    expect(cycles()).toEqual([]);
  });

  it('never reach from one app (or the bench) into another app', () => {
    const crossing: string[] = [];
    for (const [file, imports] of graph) {
      const owner = rel(file).split(path.sep);
      for (const target of imports) {
        const [top, app] = rel(target).split(path.sep);
        if (top === 'apps' && !(owner[0] === 'apps' && owner[1] === app)) crossing.push(`${rel(file)} -> ${rel(target)}`);
      }
    }
    expect(crossing).toEqual([]);
  });

  it('keep the layers in order: each lib imports only the libs below it (docs/decisions.md, "One application layer")', () => {
    // What each lib may import besides itself; apps may import any lib.
    const below: Record<string, string[]> = {
      application: ['infrastructure', 'domain', 'contracts'],
      infrastructure: ['domain', 'contracts'],
      domain: ['contracts'],
      contracts: ['domain'],
    };
    const upward: string[] = [];
    for (const [file, imports] of graph) {
      const [top, lib] = rel(file).split(path.sep);
      if (top !== 'libs') continue;
      for (const target of imports) {
        const [targetTop, targetLib] = rel(target).split(path.sep);
        if (targetTop === 'libs' && targetLib !== lib && !below[lib]?.includes(targetLib)) upward.push(`${rel(file)} -> ${rel(target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('keep I/O out of libs/domain and libs/contracts (pure rules and the wire: no store, network, file or framework package)', () => {
    const io = /^(node:)?(fs|net|http|https|http2|child_process|dgram|dns|tls|worker_threads|os)(\/|$)|^(better-sqlite3|mongodb|@eventstore\/|pg$|mysql2|@duckdb\/|@nestjs\/|fastify|@octokit\/|@slack\/|openai)/;
    const impure: string[] = [];
    for (const file of graph.keys()) {
      const [top, lib] = rel(file).split(path.sep);
      if (top !== 'libs' || (lib !== 'domain' && lib !== 'contracts')) continue;
      const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
      source.forEachChild((node) => {
        if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && io.test(node.moduleSpecifier.text)) impure.push(`${rel(file)} -> ${node.moduleSpecifier.text}`);
      });
    }
    expect(impure).toEqual([]);
  });

  it('load reflect-metadata themselves wherever class-transformer is used (a spec may load a DTO first)', () => {
    const packages = (file: string) => [...fs.readFileSync(file, 'utf8').matchAll(/^import (?:[^'";]* from )?'([^'.][^']*)';$/gm)].map((m) => m[1]);
    const bare = [...graph.keys()].filter((file) => {
      const imported = packages(file);
      return imported.includes('class-transformer') && !imported.includes('reflect-metadata');
    });
    expect(bare.map(rel)).toEqual([]);
  });

  it('come from files of at most 500 lines (a longer one is two modules waiting to be split)', () => {
    const long = [...graph.keys()].filter((file) => fs.readFileSync(file, 'utf8').split('\n').length > 500);
    expect(long.map(rel)).toEqual([]);
  });

  it('are all resolved to files that exist (the check above sees every local import)', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(['application', 'infrastructure', 'domain', 'contracts'].every((lib) => [...graph.keys()].some((file) => rel(file).startsWith(`libs${path.sep}${lib}${path.sep}`)))).toBe(true);
    expect(APPS.every((app) => [...graph.keys()].some((file) => rel(file).startsWith(`apps${path.sep}${app}${path.sep}`)))).toBe(true);
  });
});
