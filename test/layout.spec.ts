/**
 * The production layout, checked without a Docker engine: docker-compose.yml, the Dockerfile and
 * .env.example say what docs/operations.md ("Docker Compose") promises, and the health checks they
 * run are run here against a stand-in server.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  restart?: string;
  ports?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

const composeText = read('docker-compose.yml');
const compose = parseYaml(composeText) as { services: Record<string, Service> };
const services = compose.services;
const dockerfile = read('Dockerfile');

/** The names `.env.example` gives a value or a commented example for. */
const envExample = new Set([...read('.env.example').matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));

describe('docker-compose.yml', () => {
  it('runs eventstore, mongo, api and projector, each restarted unless stopped and each with a health check', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'eventstore', 'mongo', 'projector']);
    for (const [name, service] of Object.entries(services)) {
      expect([name, service.restart]).toEqual([name, 'unless-stopped']);
      expect([name, service.healthcheck?.test.length]).toEqual([name, expect.any(Number)]);
    }
  });

  it('starts the api and the projector only once both stores are healthy', () => {
    for (const name of ['api', 'projector']) {
      expect(services[name].depends_on).toEqual({ eventstore: { condition: 'service_healthy' }, mongo: { condition: 'service_healthy' } });
    }
    expect(services.eventstore.healthcheck?.test.join(' ')).toContain('/health/live');
  });

  it('counts mongo healthy only once its replica set has a writable primary, initiating the set on first start', () => {
    const script = services.mongo.healthcheck!.test.join(' ');
    expect(script).toContain("rs.initiate({_id: 'rs0', members: [{_id: 0, host: 'mongo:27017'}]})");
    expect(script).toMatch(/quit\(db\.hello\(\)\.isWritablePrimary \? 0 : 1\)/);
    expect(services.mongo.healthcheck!.test[0]).toBe('CMD');
  });

  it('builds one image, once, and runs both processes from it', () => {
    const built = Object.entries(services).filter(([, s]) => s.build !== undefined);
    expect(built.map(([name]) => name)).toEqual(['api']);
    expect(services.api.image).toBeTruthy();
    expect(services.projector.image).toBe(services.api.image);
    expect(services.projector.build).toBeUndefined();
  });

  it('publishes every port on 127.0.0.1 only', () => {
    const ports = Object.values(services).flatMap((s) => s.ports ?? []);
    expect(ports.length).toBeGreaterThan(0);
    for (const port of ports) expect(port).toMatch(/^127\.0\.0\.1:/);
  });

  it('takes every variable it uses from .env.example or a default, and refuses to start without a required one', () => {
    for (const [, name, modifier] of composeText.replace(/^\s*#.*$/gm, '').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(:?[-?+])?[^}]*\}/g)) {
      const hasDefault = modifier === ':-' || modifier === '-';
      expect([name, hasDefault || envExample.has(name)]).toEqual([name, true]);
      if (!hasDefault) expect([name, modifier]).toEqual([name, ':?']);
    }
  });

  it('passes the api every ${env:NAME} config/svc-config.yaml references, from .env', () => {
    const names = [...read('config/svc-config.yaml').replace(/^\s*#.*$/gm, '').matchAll(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      expect([name, services.api.environment?.[name]]).toEqual([name, expect.stringMatching(new RegExp(`^\\$\\{${name}:\\?`))]);
      expect([name, envExample.has(name)]).toEqual([name, true]);
    }
    expect(services.api.environment?.SVC_CONFIG).toBe('/config/svc-config.yaml');
    expect(services.api.environment?.SVC_ENCRYPTION_KEY).toBe(services.projector.environment?.SVC_ENCRYPTION_KEY);
  });

  it('quotes the contract-suite command exactly as the README does', () => {
    const readme = read('README.md');
    const block = /```sh\ndocker compose up -d --wait eventstore mongo\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const command = block!.replace(/\s*\\\n\s*/g, ' ').trim();
    expect(command).toContain("EVENTSTORE_URL='esdb://");
    const comment = composeText.split('\n').find((line) => line.includes('npm test'));
    expect(comment?.replace(/^#\s*/, '')).toBe(command);
  });

  it('keeps .env out of git and out of the image', () => {
    expect(read('.gitignore').split('\n')).toContain('.env');
    expect(read('.dockerignore').split('\n')).toEqual(expect.arrayContaining(['.env', '.git', 'node_modules', 'dist', 'data', 'coverage']));
  });
});

describe('README.md', () => {
  const readme = read('README.md');

  it('defines $KEY before the first example that uses it', () => {
    const defined = readme.search(/^KEY='[^']+'/m);
    expect(defined).toBeGreaterThan(-1);
    expect(readme.indexOf('"$KEY"')).toBeGreaterThan(defined);
  });

  it('links the API reference, the OpenAPI document, the metrics and the health endpoints', () => {
    for (const route of ['/docs', '/openapi.json', '/metrics', '/livez', '/readyz']) {
      expect([route, readme.includes(`<http://127.0.0.1:8080${route}>`)]).toEqual([route, true]);
    }
  });

  it('says npm start builds only when the sources changed, as package.json does', () => {
    expect(readme).toMatch(/builds if the sources changed/);
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    for (const name of ['prestart', 'prestart:api', 'prestart:projector']) expect([name, scripts[name]]).toEqual([name, 'node scripts/build-if-changed.js']);
  });
});

describe('Dockerfile', () => {
  const lines = dockerfile.split('\n');
  const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l));

  it('runs as node, with /data created and owned by node before it is declared a volume', () => {
    const chown = at(/^RUN .*mkdir -p \/data.*chown node:node \/data/);
    expect(chown).toBeGreaterThan(at(/^FROM node:(22|24)-\S+$/));
    expect(at(/^VOLUME \/data$/)).toBeGreaterThan(chown);
    expect(at(/^USER node$/)).toBeGreaterThan(chown);
    expect(dockerfile).toMatch(/^ENV .*SVC_DATA_DIR=\/data/m);
  });

  it('builds on a Node LTS with npm ci, then the build, then a production prune', () => {
    expect(lines.filter((l) => l.startsWith('FROM ')).every((l) => /^FROM node:(22|24)-/.test(l))).toBe(true);
    const ci = at(/^RUN npm ci$/);
    const build = at(/^RUN npm run build && npm prune --omit=dev$/);
    expect(ci).toBeGreaterThan(-1);
    expect(build).toBeGreaterThan(ci);
  });

  it('declares a HEALTHCHECK on the api\'s readiness (/readyz): a projector child the api restarts itself does not fail it', () => {
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\\\n\s+CMD \["node", "-e", .*\/readyz/m);
  });

  it('compiles better-sqlite3 from source through .prebuild-installrc, with no .npmrc key npm does not know', () => {
    expect(fs.existsSync(path.join(ROOT, '.npmrc'))).toBe(false);
    expect(read('.prebuild-installrc')).toMatch(/^buildFromSource=true$/m);
    expect(dockerfile).toMatch(/^COPY package\.json package-lock\.json \.prebuild-installrc \.\/$/m);
  });
});

describe('health checks, run against a stand-in server', () => {
  let server: Server;
  let status = 200;
  let port = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(req.url === '/healthz' || req.url === '/readyz' ? status : 404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const exitCode = (command: string[], env: Record<string, string>) => {
    expect(command.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    return new Promise<number>((resolve) => {
      execFile(process.execPath, ['-e', command[3]], { env: { ...process.env, ...env } }, (error) => resolve(error ? Number(error.code) : 0));
    });
  };
  const imageCheck = JSON.parse(/^\s+CMD (\[.*\])$/m.exec(dockerfile.slice(dockerfile.indexOf('HEALTHCHECK')))![1]) as string[];
  const checks: Array<[string, string[], string]> = [
    ['the image (api)', ['CMD', ...imageCheck], 'PORT'],
    ['compose api', services.api.healthcheck!.test, 'PORT'],
    ['compose projector', services.projector.healthcheck!.test, 'PROJECTOR_PORT'],
  ];

  it.each(checks)('%s: healthy on 200, unhealthy on 503 or when nothing listens', async (_, command, variable) => {
    status = 200;
    expect(await exitCode(command, { [variable]: String(port) })).toBe(0);
    status = 503;
    expect(await exitCode(command, { [variable]: String(port) })).toBe(1);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const unused = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await exitCode(command, { [variable]: String(unused) })).toBe(1);
  });

  it('the projector serves the port its check asks', () => {
    expect(services.projector.environment?.PROJECTOR_PORT).toMatch(/^\d+$/);
  });
});
