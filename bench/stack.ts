/**
 * The system under test: the built api and projector started as two separate processes on a fresh
 * temporary data directory (embedded SQLite default), as production-like as one machine allows.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** The build this file belongs to (`dist/`, or wherever the project was compiled with the bench). */
const DIST = path.resolve(__dirname, '..');
export const API_MAIN = path.join(DIST, 'apps/api/src/main.js');
export const PROJECTOR_MAIN = path.join(DIST, 'apps/projector/src/main.js');

export interface Credentials {
  username: string;
  password: string;
}

/** Two organizations: `acme` takes the write load, `globex` holds exactly the List data set. */
export const WRITER: Credentials = { username: 'bench-acme-key', password: 'bench-acme-secret' };
export const LISTER: Credentials = { username: 'bench-globex-key', password: 'bench-globex-secret' };
/** Roleless members of acme (membership only: they may Subscribe, not Publish), for the streams phase. */
export const READERS: Credentials[] = Array.from({ length: 10 }, (_, i) => ({ username: `bench-reader${i}-key`, password: `bench-reader${i}-secret` }));

/** The big-org phase: an organization it grows to BENCH_BIG_ORG_MEMBERS, and one of 5 members to compare with. */
export const BIG_ORGS = (['bigorg', 'smallorg'] as const).map((org) => ({ org, admin: { username: `bench-${org}-key`, password: `bench-${org}-secret` } }));
/** A trusted identity provider of both, whose JWTs make first bearer logins (JoinOrganization). */
export const BENCH_IDP = (() => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { issuer: 'https://idp.bench', privateKey, publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString() };
})();
const CONFIG = `
organizations:
  - id: acme
    display_name: Acme Inc.
    members:
      - user: alice
        roles: [admin]
        api_keys: ["${WRITER.username}:${WRITER.password}"]
${READERS.map((r, i) => `      - user: reader${i}\n        roles: []\n        api_keys: ["${r.username}:${r.password}"]`).join('\n')}
  - id: globex
    display_name: Globex
    members:
      - user: gina
        roles: [admin]
        api_keys: ["${LISTER.username}:${LISTER.password}"]
${BIG_ORGS.map((o) => `  - id: ${o.org}\n    display_name: ${o.org}\n    members:\n      - user: owner\n        roles: [admin]\n        api_keys: ["${o.admin.username}:${o.admin.password}"]`).join('\n')}
`;
/** After every organization (the flood phase appends one to CONFIG). */
const ISSUERS = `bearer_issuers:
  - issuer: ${BENCH_IDP.issuer}
    audience: svc
    public_key_pem: "\${env:BENCH_IDP_PUBLIC_KEY}"
    organizations: [${BIG_ORGS.map((o) => o.org).join(', ')}]
`;

/** `count` API keys of one member of a third organization, `initech`: each one's first sign-in is a full slow hash. */
export function loginKeys(count: number): Credentials[] {
  return Array.from({ length: count }, (_, i) => ({ username: `bench-login-${i}`, password: `bench-login-secret-${i}` }));
}

export interface StackOptions {
  /** Keys of `loginKeys` to configure (the flood phase). */
  loginKeys?: number;
  /** Extra environment for the api process (e.g. SVC_READ_WAIT_MS). */
  apiEnv?: Record<string, string>;
  /** Extra node flags for the api process (e.g. --cpu-prof). */
  apiNodeArgs?: string[];
  /** Extra node flags for the projector process. */
  projectorNodeArgs?: string[];
  /** Echo the children's output (BENCH_VERBOSE=1). */
  verbose?: boolean;
}

export class Stack {
  readonly dataDir: string;
  baseUrl = '';
  port = 0;
  private api: ChildProcess | null = null;
  private projector: ChildProcess | null = null;
  /** Further api instances (startSecondApi). */
  private readonly extra: ChildProcess[] = [];
  private readonly output: string[] = [];
  private env: NodeJS.ProcessEnv = {};

  constructor(private readonly options: StackOptions = {}) {
    this.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  }

  get eventsFile(): string {
    return path.join(this.dataDir, 'events.db');
  }

  get readFile(): string {
    return path.join(this.dataDir, 'read.db');
  }

  async start(): Promise<void> {
    for (const main of [API_MAIN, PROJECTOR_MAIN]) {
      if (!fs.existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
    }
    this.port = await freePort();
    this.baseUrl = `http://127.0.0.1:${this.port}`;
    const configFile = path.join(this.dataDir, 'svc-config.yaml');
    const logins = loginKeys(this.options.loginKeys ?? 0);
    const initech = logins.length
      ? `  - id: initech\n    display_name: Initech\n    members:\n      - user: ivan\n        roles: []\n        api_keys: [${logins.map((k) => `"${k.username}:${k.password}"`).join(', ')}]\n`
      : '';
    fs.writeFileSync(configFile, CONFIG + initech + ISSUERS);
    this.env = {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(this.port),
      HOST: '127.0.0.1',
      SVC_DATA_DIR: this.dataDir,
      SVC_CONFIG: configFile,
      BENCH_IDP_PUBLIC_KEY: BENCH_IDP.publicKeyPem,
      EVENTSTORE_URL: '',
      MONGODB_URL: '',
    };
    this.projector = this.spawn('projector', PROJECTOR_MAIN, {}, this.options.projectorNodeArgs ?? []);
    this.api = this.spawn('api', API_MAIN, { SVC_PROJECTOR: 'off', ...this.options.apiEnv }, this.options.apiNodeArgs ?? []);
    await this.waitHealthy();
  }

  /** Starts another api instance on the same data directory (`npm run start:api`); answers its base URL. */
  async startSecondApi(): Promise<string> {
    const port = await freePort();
    const child = this.spawn('api2', API_MAIN, { SVC_PROJECTOR: 'off', PORT: String(port), ...this.options.apiEnv }, []);
    this.extra.push(child);
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`the second api exited (${child.exitCode}):\n${this.recentOutput()}`);
      try {
        const res = await fetch(`${url}/healthz`);
        await res.arrayBuffer();
        if (res.status === 200) return url;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`the second api did not become healthy:\n${this.recentOutput()}`);
  }

  get apiPid(): number | undefined {
    return this.api?.pid;
  }

  get projectorPid(): number | undefined {
    return this.projector?.pid;
  }

  /** Stops the projector process (SIGTERM, then SIGKILL after a grace period). */
  async stopProjector(): Promise<void> {
    if (this.projector) await stopProcess(this.projector);
    this.projector = null;
  }

  async stop(): Promise<void> {
    await Promise.all([this.api, this.projector, ...this.extra.splice(0)].filter((p): p is ChildProcess => p !== null).map((p) => stopProcess(p)));
    this.api = null;
    this.projector = null;
  }

  /** Synchronous last-resort kill for process exit handlers. */
  killNow(): void {
    for (const child of [this.api, this.projector, ...this.extra]) {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }

  removeData(): void {
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  recentOutput(lines = 40): string {
    return this.output.slice(-lines).join('');
  }

  private spawn(name: string, main: string, env: Record<string, string>, nodeArgs: string[]): ChildProcess {
    const child = spawn(process.execPath, [...nodeArgs, main], {
      env: { ...this.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: this.dataDir,
    });
    const record = (chunk: Buffer): void => {
      const text = `[${name}] ${chunk.toString()}`;
      this.output.push(text);
      if (this.output.length > 500) this.output.splice(0, this.output.length - 500);
      if (this.options.verbose) process.stderr.write(text);
    };
    child.stdout?.on('data', record);
    child.stderr?.on('data', record);
    return child;
  }

  private async waitHealthy(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      for (const child of [this.api, this.projector]) {
        if (child && child.exitCode !== null) {
          throw new Error(`a process exited (${child.exitCode}) before the stack was healthy:\n${this.recentOutput()}`);
        }
      }
      try {
        const res = await fetch(`${this.baseUrl}/healthz`);
        await res.arrayBuffer();
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`stack did not become healthy in ${timeoutMs} ms:\n${this.recentOutput()}`);
  }
}

export function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
