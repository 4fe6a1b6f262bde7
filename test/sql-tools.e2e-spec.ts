/**
 * An agent works on real data (issue 20): the OpenAI-compatible runtime against a local fake model
 * that asks for TOOL_SQLDB_QUERY, the tool executor in the real projector, and a real PostgreSQL
 * database of this test's own (test/support/sql-servers.ts), declared as a sqldb connection in the
 * operator configuration. The model is told only what the tool answered.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually, Stack, TEST_CONFIG } from './support/harness';
import { createTestDatabase, describeWith, serverAvailable, sqlServer, type TestDatabase } from './support/sql-servers';

const S = 'svc.nxagent.v2.AgentService';
const ACTIVITY = 'type.googleapis.com/svc.nxagent.v1.Activity';
const DB_PASSWORD = 'sample-db-password-e2e-51c0';
const server = sqlServer('postgres');
const maria = sqlServer('mysql');

interface ReadAnswer {
  messages: Array<Record<string, unknown>>;
  status: string;
  sessionLength: number;
}

/**
 * A chat-completions server playing a model: asked after a user message `SQL: <statement>`, it calls
 * sqldb_query with that statement; asked after the tool's answer, it says `Result: <the answer>`.
 */
class SqlAskingModel {
  private server!: Server;
  requests: Array<{ messages: Array<{ role: string; content?: string | null }> }> = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const request = JSON.parse(body) as { messages: Array<{ role: string; content?: string | null }> };
        this.requests.push(request);
        const last = request.messages[request.messages.length - 1];
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: Record<string, unknown>, finish?: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, ...(finish ? { finish_reason: finish } : {}) }] })}\n\n`;
        if (last.role === 'user') {
          const sql = String(last.content).replace(/^SQL: /, '');
          const call = { index: 0, id: `call_${this.requests.length}`, type: 'function', function: { name: 'sqldb_query', arguments: JSON.stringify({ sql }) } };
          res.end(`${chunk({ tool_calls: [call] })}${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
        } else {
          res.end(`${chunk({ content: `Result: ${String(last.content)}` })}${chunk({}, 'stop')}data: [DONE]\n\n`);
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describeWith(server)('an agent on real data: TOOL_SQLDB_QUERY against PostgreSQL (and MariaDB) through the OpenAI-compatible runtime', () => {
  let stack: Stack;
  let db: TestDatabase;
  let mariaDb: TestDatabase | undefined;
  const withMaria = serverAvailable(maria);
  const model = new SqlAskingModel();

  beforeAll(async () => {
    db = await createTestDatabase(server);
    await db.exec('create table orders (id integer primary key, customer text not null, total numeric(10,2) not null)');
    await db.exec("insert into orders select i, 'customer ' || i, i * 1.5 from generate_series(1, 7) as i");
    let mariaConnection = '';
    if (withMaria) {
      mariaDb = await createTestDatabase(maria);
      await mariaDb.exec('create table orders (id integer primary key, customer varchar(50) not null, total decimal(10,2) not null)');
      await mariaDb.exec("insert into orders values (1, 'ada', 1.00), (2, 'bob', 2.00), (3, 'cy', 3.00), (4, 'dee', 4.00), (5, 'eve', 5.00)");
      mariaConnection = `      - id: sample-maria
        type: CONNECTION_TYPE_SQLDB
        details: {sqldb: {driver: mysql, host: "${maria.host}", port: ${maria.port}, database: ${mariaDb.name}, username: ${maria.user}, password: "${maria.password}", ssl_mode: disable}}
`;
    }
    const baseUrl = await model.start();
    const connection = `${mariaConnection}      - id: sample
        display_name: Sample orders
        type: CONNECTION_TYPE_SQLDB
        details: {sqldb: {driver: postgres, host: "${server.host}", port: ${server.port}, database: ${db.name}, username: ${server.user}, password: "${DB_PASSWORD}", ssl_mode: disable}}
        tools: [{tool: TOOL_SQLDB_QUERY, enabled: true}]
      - id: pagerduty
`;
    stack = await Stack.start({
      config: TEST_CONFIG.replace('      - id: pagerduty\n', connection),
      env: { SVC_AGENT_RUNTIME: 'openai', SVC_MODEL_BASE_URL: baseUrl, SVC_MODEL: 'fake-model', SVC_TOOL_TIMEOUT_MS: '1000' },
    });
    const agent = { prompt: 'You answer from the orders database.', connections: [{ name: 'connections/sample', enabled_tools: ['TOOL_SQLDB_QUERY'] }] };
    expect((await stack.rpc(`${S}/CreateAgent`, { agent_id: 'analyst', agent })).status).toBe(200);
    if (withMaria) {
      const mariaAgent = { prompt: 'You answer from the MariaDB orders database.', connections: [{ name: 'connections/sample-maria', enabled_tools: ['TOOL_SQLDB_QUERY'] }] };
      expect((await stack.rpc(`${S}/CreateAgent`, { agent_id: 'maria-analyst', agent: mariaAgent })).status).toBe(200);
    }
  }, 90_000);
  afterAll(async () => {
    await stack?.destroy();
    await model.stop();
    await db?.drop();
    await mariaDb?.drop();
  });

  /** Asks the agent in a new session; answers the tool's result as the model saw it, and the reply. */
  async function ask(sql: string, agentName = 'agents/analyst'): Promise<{ result: Record<string, unknown>; reply: string; messages: Array<Record<string, unknown>> }> {
    const write = await stack.rpc<{ session: string }>(`${S}/Write`, { parent: agentName, messages: [{ '@type': ACTIVITY, user: { text: { text: `SQL: ${sql}` } } }] });
    expect(write.status).toBe(200);
    const read = await eventually(async () => {
      const res = await stack.rpc<ReadAnswer>(`${S}/Read`, { session: write.body.session });
      return res.body.status === 'STATUS_WAITING' && res.body.sessionLength === 4 ? res.body : undefined;
    }, 30_000);
    const [, calls, results, reply] = read.messages;
    expect(calls).toEqual({ '@type': ACTIVITY, assistant: { toolCalls: [{ id: expect.any(String), name: 'TOOL_SQLDB_QUERY', arguments: JSON.stringify({ sql }) }] } });
    const toolResults = (results.user as { toolResults: Array<{ toolCallId: string; content: string }> }).toolResults;
    expect(toolResults).toHaveLength(1);
    const text = (reply.assistant as { text: { text: string } }).text.text;
    // The model read exactly what the tool answered.
    expect(text).toBe(`Result: ${toolResults[0].content}`);
    return { result: JSON.parse(toolResults[0].content) as Record<string, unknown>, reply: text, messages: read.messages };
  }

  it('gets the real row count of the table into the session', async () => {
    const { result } = await ask('select count(*) as orders from orders');
    expect(result).toEqual({ columns: ['orders'], rows: [[7]], rowCount: 1 });
  });

  it('an UPDATE through the tool is refused by the read-only transaction and changes nothing', async () => {
    const { result } = await ask('update orders set total = 0');
    expect(result).toEqual({ error: 'PERMISSION_DENIED', message: expect.stringContaining('read-only') });
    expect((await ask('select sum(total) as total from orders')).result).toEqual({ columns: ['total'], rows: [['42.00']], rowCount: 1 });
  });

  it('a statement past the timeout (SVC_TOOL_TIMEOUT_MS=1000) is cut with DEADLINE_EXCEEDED, and the session carries no password', async () => {
    const started = Date.now();
    const { result, messages } = await ask('select pg_sleep(5)');
    expect(result).toEqual({ error: 'DEADLINE_EXCEEDED', message: 'the statement ran past the 1000 ms limit and was cancelled' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(JSON.stringify(messages)).not.toContain(DB_PASSWORD);
    expect(JSON.stringify(model.requests)).not.toContain(DB_PASSWORD);
    expect(stack.output.join('')).not.toContain(DB_PASSWORD);
  });

  (withMaria ? it : it.skip)('on MariaDB too: the real row count, and an UPDATE that changes nothing', async () => {
    expect((await ask('select count(*) as orders from orders', 'agents/maria-analyst')).result).toEqual({ columns: ['orders'], rows: [[5]], rowCount: 1 });
    expect((await ask('update orders set total = 0', 'agents/maria-analyst')).result).toEqual({ error: 'PERMISSION_DENIED', message: expect.stringContaining('READ ONLY') });
    expect((await ask('select sum(total) as total from orders', 'agents/maria-analyst')).result).toEqual({ columns: ['total'], rows: [['15.00']], rowCount: 1 });
  });
});

describeWith(server)('npm start with no SVC_CONFIG: the demo agent answers from the sample orders database', () => {
  it('the banner says how to ask it, and its Write gets the real counts from PostgreSQL through the built-in runtime', async () => {
    const stack = await Stack.start({ layout: 'npm-start', config: null, env: { SVC_DEMO_POSTGRES: `${server.host}:${server.port}` } });
    try {
      const banner = stack.output.filter((chunk) => chunk.startsWith('[api!] ')).join('');
      expect(banner).toContain(`Ask agents/analyst about the sample orders database (PostgreSQL svc_demo on ${server.host}:${server.port})`);
      const pattern = /curl -s -u '([^']+)' -H 'content-type: application\/json' \\\n\s+-d '([^']+)' \\\n\s+(\S+\.AgentService\/Write)/;
      expect(banner).toMatch(pattern);
      const curl = pattern.exec(banner);
      const [, key, body, url] = curl!;
      const auth = { authorization: `Basic ${Buffer.from(key).toString('base64')}`, 'content-type': 'application/json' };
      const write = await fetch(url, { method: 'POST', headers: auth, body });
      expect(write.status).toBe(200);
      const { session } = (await write.json()) as { session: string };
      const read = await eventually(async () => {
        const res = await fetch(url.replace(/Write$/, 'Read'), { method: 'POST', headers: auth, body: JSON.stringify({ session }) });
        const answer = (await res.json()) as ReadAnswer;
        return answer.status === 'STATUS_WAITING' && answer.sessionLength === 4 ? answer : undefined;
      }, 30_000);
      const results = (read.messages[2].user as { toolResults: Array<{ content: string }> }).toolResults;
      // Twelve seeded orders: six paid, three refunded, three shipped.
      const expected = { columns: ['status', 'count'], rows: [['paid', 6], ['refunded', 3], ['shipped', 3]], rowCount: 3 };
      expect(JSON.parse(results[0].content)).toEqual(expected);
      const reply = (read.messages[3].assistant as { text: { text: string } }).text.text;
      expect(reply.split('\n')[1]).toBe(`TOOL_SQLDB_QUERY: ${JSON.stringify(expected)}`);
    } finally {
      await stack.destroy();
    }
  });
});

describe('npm start with no SVC_CONFIG and no PostgreSQL', () => {
  it('starts as before: one log line says why there is no sample database, and the banner offers no agent', async () => {
    const stack = await Stack.start({ layout: 'npm-start', config: null, env: { SVC_DEMO_POSTGRES: '127.0.0.1:1' } });
    try {
      const banner = stack.output.filter((chunk) => chunk.startsWith('[api!] ')).join('');
      expect(banner).toContain("Demo organization 'demo' created");
      expect(banner).not.toContain('agents/analyst');
      const line = stack.logLines('api').find((l) => String(l.msg).startsWith('demo: no sample SQL database'));
      expect(String(line?.msg)).toMatch(/^demo: no sample SQL database \(PostgreSQL at 127\.0\.0\.1:1: .*\); the demo organization has no SQL connection$/);
      const pair = /API key pair: ([^:\s]+):(\S+)/.exec(banner);
      const connections = await stack.request<{ connections?: unknown[] }>('GET', '/v1/connections', { as: { username: pair![1], password: pair![2] } });
      expect(connections.status).toBe(200);
      expect(connections.body.connections ?? []).toEqual([]);
    } finally {
      await stack.destroy();
    }
  });
});
