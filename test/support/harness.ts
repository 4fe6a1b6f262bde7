import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
export const API_MAIN = path.join(ROOT, 'dist/apps/api/src/main.js');
export const PROJECTOR_MAIN = path.join(ROOT, 'dist/apps/projector/src/main.js');
export const CLI_MAIN = path.join(ROOT, 'dist/apps/cli/src/main.js');

/** The organizations every end-to-end test can use (spec/operator-config.md shape). */
export const TEST_CONFIG = `
organizations:
  - id: acme
    display_name: Acme Inc.
    members:
      - user: alice
        roles: [admin]
        api_keys: ["alice-key:alice-secret"]
      - user: bob
        roles: []
        api_keys: ["bob-key:bob-secret"]
      - user: carol
        roles: []
        api_keys: ["carol-key:carol-secret"]
      - user: dave
        roles: []
        api_keys: ["dave-key:dave-secret"]
    service_accounts:
      - id: deployer
        roles: [admin]
        api_keys: ["deployer-key:deployer-secret"]
    connections:
      - id: warehouse
        display_name: Warehouse
        type: CONNECTION_TYPE_SQLDB
        details: {sqldb: {host: db.internal, port: 5432, database: analytics, username: svc, password: "inline-secret", ssl_mode: require}}
        tools: [{tool: TOOL_SQLDB_QUERY, enabled: true}]
      - id: metrics
        display_name: Metrics
        description: Production Prometheus
        type: CONNECTION_TYPE_PROMETHEUS
        details: {prometheus: {url: "https://prometheus.internal", token: "prom-token-secret"}}
        tools: [{tool: TOOL_PROMQL_QUERY, enabled: true}, {tool: TOOL_PROMQL_QUERY_RANGE, enabled: true}]
      - id: github
        display_name: GitHub
        type: CONNECTION_TYPE_CODEHOST
        details: {codehost: {provider: local-git, root: ./repos}}
      - id: slack
        display_name: Slack
        type: CONNECTION_TYPE_CHAT
        details: {chat: {team_id: T001, signing_secret: "chat-signing-secret", bot_channels: [{name: "#ops", id: C001}]}}
      - id: pagerduty
        type: CONNECTION_TYPE_PAGER
    services:
      - id: checkout
        display_name: Checkout
        description: Takes payments for carts
        state: SERVICE_STATE_ACTIVE
        dimensions: [{id: region, display_name: Region, source_column: region}, {id: plan, display_name: Plan}]
      - id: search
        display_name: Search
        state: SERVICE_STATE_RECOMMENDED
        recommendation_confidence: RECOMMENDATION_CONFIDENCE_HIGH
  - id: globex
    display_name: Globex
    members:
      - user: gina
        roles: [admin]
        api_keys: ["gina-key:gina-secret"]
    connections:
      - id: ledger
        display_name: Ledger
        type: CONNECTION_TYPE_SQLDB
        details: {sqldb: {host: ledger.internal, port: 5432, database: ledger, username: svc, password: "globex-secret", ssl_mode: require}}
        tools: [{tool: TOOL_SQLDB_QUERY, enabled: true}]
    services:
      - id: billing
        display_name: Billing
workload_issuers:
  - issuer: https://workload.test
    public_key_pem: "\${env:TEST_WORKLOAD_PUBLIC_KEY}"
    organizations: [acme, globex]
bearer_issuers:
  - issuer: https://idp.test
    audience: svc
    public_key_pem: "\${env:TEST_IDP_PUBLIC_KEY}"
    org_claim: tenant
    organizations: [acme]
machine_credentials: ["integrations:machine-secret"]
`;

/** The machine credentials of TEST_CONFIG (internal webhook endpoints only). */
export const MACHINE = { username: 'integrations', password: 'machine-secret' };

/**
 * A second chat connection of acme for the trigger and chat webhook tests (kept out of TEST_CONFIG,
 * whose connection list other tests assert): its bot is in three channels and answers to a default
 * handle `svc` and a custom handle `triage`.
 */
export const CHATOPS_SIGNING_SECRET = 'chatops-signing-secret';
export const TEST_CONFIG_WITH_CHATOPS = TEST_CONFIG.replace(
  '      - id: pagerduty\n',
  `      - id: chatops
        display_name: ChatOps
        type: CONNECTION_TYPE_CHAT
        details: {chat: {team_id: T002, signing_secret: "${CHATOPS_SIGNING_SECRET}", bot_channels: [{name: "#ops", id: C101}, {name: "#deploys", id: C102}, {name: "#random", id: C103}], handles: [{id: svc, user_id: U0SVC, default: true}, {id: triage, user_id: U0TRIAGE}]}}
      - id: pagerduty
`,
);

/**
 * A SQL connection of acme that declares its schema (`details.sqldb.schema`: table to column to
 * type), which indicator queries are planned against; kept out of TEST_CONFIG like chatops.
 */
export const TEST_CONFIG_WITH_TELEMETRY = TEST_CONFIG.replace(
  '      - id: pagerduty\n',
  `      - id: telemetry
        display_name: Telemetry
        type: CONNECTION_TYPE_SQLDB
        details: {sqldb: {host: telemetry.internal, port: 5432, database: telemetry, username: svc, password: "telemetry-secret", ssl_mode: require, dialect: bigquery, schema: {requests: {ts: TIMESTAMP, ok: BOOL, latency_ms: FLOAT64, service: STRING}, "ops.queue": {ts: TIMESTAMP, depth: INT64}}}}
        tools: [{tool: TOOL_SQLDB_QUERY, enabled: true}]
      - id: pagerduty
`,
);

/** A trusted issuer of TEST_CONFIG: its name and the private key a test signs its JWTs with. */
export interface TestIssuer {
  issuer: string;
  privateKey: KeyObject;
  /** The environment variable the configuration reads the public key from. */
  env: string;
  publicKeyPem: string;
}

function testIssuer(issuer: string, env: string): TestIssuer {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { issuer, privateKey, env, publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString() };
}

/** Keys made once per test file; every Stack passes their public halves (tests may override them). */
export const TEST_IDP = testIssuer('https://idp.test', 'TEST_IDP_PUBLIC_KEY');
export const TEST_WORKLOAD = testIssuer('https://workload.test', 'TEST_WORKLOAD_PUBLIC_KEY');

export interface Credentials {
  username: string;
  password: string;
}

export const ALICE: Credentials = { username: 'alice-key', password: 'alice-secret' };
export const BOB: Credentials = { username: 'bob-key', password: 'bob-secret' };
export const CAROL: Credentials = { username: 'carol-key', password: 'carol-secret' };
export const DAVE: Credentials = { username: 'dave-key', password: 'dave-secret' };
export const DEPLOYER: Credentials = { username: 'deployer-key', password: 'deployer-secret' };
export const GINA: Credentials = { username: 'gina-key', password: 'gina-secret' };

/** The google.rpc.RequestInfo detail every error body ends with (the request's X-Request-Id). */
export const REQUEST_INFO = { '@type': 'type.googleapis.com/google.rpc.RequestInfo', requestId: expect.any(String) as unknown as string };

export interface Response<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export interface StartOptions {
  /**
   * `separate`: api and projector started as two processes (default); `inprocess`: one process;
   * `npm-start`: the api starts the projector as its child, as `npm start` does.
   */
  layout?: 'separate' | 'inprocess' | 'npm-start';
  config?: string | null;
  env?: Record<string, string>;
  dataDir?: string;
  /** Each process leads its own process group, so a test can signal the group as a terminal's Ctrl-C does. */
  detached?: boolean;
}

/** The real api and projector, started from the build on a temporary data directory, spoken to over HTTP. */
export class Stack {
  readonly processes: ChildProcess[] = [];
  readonly output: string[] = [];
  baseUrl = '';
  dataDir = '';
  private env: NodeJS.ProcessEnv = {};
  private detached = false;

  static async start(options: StartOptions = {}): Promise<Stack> {
    const stack = new Stack();
    try {
      await stack.boot(options);
    } catch (error) {
      // The caller never gets the stack to destroy: stop what did start, or its pipes keep jest alive.
      await stack.stop().catch(() => undefined);
      throw error;
    }
    return stack;
  }

  private async boot(options: StartOptions): Promise<void> {
    this.dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-'));
    this.detached = options.detached ?? false;
    const port = await freePort();
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.env = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_DATA_DIR: this.dataDir,
      EVENTSTORE_URL: '',
      MONGODB_URL: '',
      [TEST_IDP.env]: TEST_IDP.publicKeyPem,
      [TEST_WORKLOAD.env]: TEST_WORKLOAD.publicKeyPem,
      ...options.env,
    };
    if (options.config !== null) {
      const configFile = path.join(this.dataDir, 'svc-config.yaml');
      fs.writeFileSync(configFile, options.config ?? TEST_CONFIG);
      this.env.SVC_CONFIG = configFile;
    } else {
      delete this.env.SVC_CONFIG;
    }
    if ((options.layout ?? 'separate') === 'separate') {
      this.spawn('projector', PROJECTOR_MAIN, {});
      this.spawn('api', API_MAIN, { SVC_PROJECTOR: 'off' });
    } else if (options.layout === 'inprocess') {
      this.spawn('api', API_MAIN, { SVC_PROJECTOR: 'inprocess' });
    } else {
      delete this.env.SVC_PROJECTOR;
      this.spawn('api', API_MAIN, {});
    }
    await this.waitHealthy();
  }

  spawn(name: string, main: string, env: Record<string, string>): ChildProcess {
    const child = spawn(process.execPath, [main], {
      env: { ...this.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: this.detached,
    });
    // stderr chunks are marked `[name!]`, so logLines reads stdout alone (JSON lines only).
    child.stdout?.on('data', (chunk: Buffer) => this.output.push(`[${name}] ${chunk.toString()}`));
    child.stderr?.on('data', (chunk: Buffer) => this.output.push(`[${name}!] ${chunk.toString()}`));
    this.processes.push(child);
    return child;
  }

  /** What one process (`api`, `projector`) has written on stdout so far. */
  stdout(name: string): string {
    const prefix = `[${name}] `;
    return this.output
      .filter((chunk) => chunk.startsWith(prefix))
      .map((chunk) => chunk.slice(prefix.length))
      .join('');
  }

  /** The JSON log lines one process (`api`, `projector`) has written so far (structured logs, pino). */
  logLines(name: string): Array<Record<string, unknown>> {
    const lines: Array<Record<string, unknown>> = [];
    for (const line of this.stdout(name).split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a line still being written
      }
    }
    return lines;
  }

  /** Starts another projector process on the same data directory (after a kill, say). */
  startProjector(): ChildProcess {
    return this.spawn('projector', PROJECTOR_MAIN, {});
  }

  // SVC_E2E_START_MS: more room on a machine busy with other work (the processes start in seconds when it is not).
  async waitHealthy(timeoutMs = Number(process.env.SVC_E2E_START_MS ?? 30_000)): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const exited = this.processes.find((p) => p.exitCode !== null && !p.killed);
      if (exited) throw new Error(`a process exited (${exited.exitCode}) before the stack was healthy:\n${this.output.join('')}`);
      try {
        const res = await fetch(`${this.baseUrl}/healthz`);
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      await sleep(50);
    }
    throw new Error(`stack did not become healthy in ${timeoutMs} ms:\n${this.output.join('')}`);
  }

  async request<T = Record<string, unknown>>(
    method: string,
    route: string,
    options: { as?: Credentials | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<Response<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const as = options.as === undefined ? ALICE : options.as;
    if (as) headers.authorization = `Basic ${Buffer.from(`${as.username}:${as.password}`).toString('base64')}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${route}`, { method, headers, body });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, headers: res.headers };
  }

  /** `POST /<service>/<method>` with a JSON body, as `as` (Alice by default). */
  rpc<T = Record<string, unknown>>(serviceMethod: string, body: unknown = {}, as?: Credentials | null): Promise<Response<T>> {
    return this.request<T>('POST', `/${serviceMethod}`, { body, as });
  }

  /** The operator CLI (`npm run svc -- ...args`) against this stack's embedded stores. */
  cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env = { ...process.env, SVC_DATA_DIR: this.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
    return new Promise((resolve) => {
      execFile(process.execPath, [CLI_MAIN, ...args], { env }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => stopProcess(p)));
  }

  async destroy(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From the signal to the exit. */
  ms: number;
}

/**
 * Sends `signal` to the process (to its whole process group with `group`, as Ctrl-C in a terminal
 * does; the process must have been started `detached`) and resolves when it has exited.
 */
export function signalAndWait(child: ChildProcess, signal: NodeJS.Signals, options: { group?: boolean } = {}): Promise<Exit> {
  const started = Date.now();
  const exited = new Promise<Exit>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode, ms: 0 });
    else child.once('exit', (code, sig) => resolve({ code, signal: sig, ms: Date.now() - started }));
  });
  if (options.group) process.kill(-child.pid!, signal);
  else child.kill(signal);
  return exited;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls until `check` returns a value (not undefined), or fails after the timeout. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(25);
  }
}
