import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { BOB, CLI_MAIN, GINA, Stack } from './support/harness';

const V2 = 'svc.customers.v2.CustomersService';
const V1 = 'svc.customers.v1.CustomersService';
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** Event types in one stream, read with the operator CLI (`npm run svc -- events --stream ...`). */
function eventTypes(stack: Stack, stream: string): Promise<string[]> {
  const env = { ...process.env, SVC_DATA_DIR: stack.dataDir, EVENTSTORE_URL: '', MONGODB_URL: '' };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI_MAIN, 'events', '--stream', stream, '--json'], { env }, (error, stdout, stderr) => {
      if (error) reject(new Error(`svc events exited: ${stderr}`));
      else resolve((JSON.parse(stdout) as { events: Array<{ type: string }> }).events.map((e) => e.type));
    });
  });
}

interface Customer {
  name: string;
  id: string;
  externalId: string;
  displayName?: string;
  description?: string;
  runbook?: string;
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}
interface ListCustomers {
  customers: Customer[];
  nextPageToken: string;
}

describe('customers (svc.customers.v2.CustomersService, deprecated v1)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(async () => {
    await stack.destroy();
  });

  const create = (id: string, customer: Record<string, unknown>, as = undefined as typeof BOB | undefined) =>
    stack.rpc<{ customer: Customer }>(`${V2}/CreateCustomer`, { customer_id: id, customer }, as);
  const get = (name: string) => stack.rpc<{ customer: Customer }>(`${V2}/GetCustomer`, { name });
  const list = (body: Record<string, unknown>) => stack.rpc<ListCustomers>(`${V2}/ListCustomers`, body);

  it('CreateCustomer stores the settable fields; id is the SHA-256 hex of external_id; output-only fields are ignored', async () => {
    const res = await create('acme-eu', {
      external_id: 'tenant-4711',
      display_name: 'Acme Europe',
      description: 'EU tenant',
      runbook: 'Page the EU on-call first',
      id: 'forged',
      create_time: '1999-01-01T00:00:00Z',
    });
    expect(res.status).toBe(200);
    expect(res.body.customer).toEqual({
      name: 'customers/acme-eu',
      id: sha256('tenant-4711'),
      externalId: 'tenant-4711',
      displayName: 'Acme Europe',
      description: 'EU tenant',
      runbook: 'Page the EU on-call first',
      createTime: expect.stringMatching(/^20\d\d-/),
      updateTime: res.body.customer.createTime,
    });
    expect((await get('customers/acme-eu')).body.customer).toEqual(res.body.customer);
  });

  it('customer_id and external_id are required; a bad customer_id or a taken one is refused and nothing is written', async () => {
    const noId = await stack.rpc(`${V2}/CreateCustomer`, { customer: { external_id: 'x-1' } });
    expect(noId.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/customer_id is required/) } });
    const noExternal = await create('no-ext', { display_name: 'Nameless' });
    expect(noExternal.status).toBe(400);
    expect(noExternal.body).toMatchObject({ error: { message: expect.stringMatching(/external_id/) } });
    expect((await get('customers/no-ext')).status).toBe(404);
    for (const bad of ['-lead', '_lead', 'has space', 'dot.ted']) {
      const res = await create(bad, { external_id: `bad-${bad}` });
      expect(res.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/customer_id must start with a letter or digit/) } });
    }
    expect((await create('Mixed_Case-9', { external_id: 'mixed-9' })).status).toBe(200);
    const taken = await create('Mixed_Case-9', { external_id: 'mixed-10' });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ error: { status: 'ALREADY_EXISTS', message: expect.stringMatching(/customers\/Mixed_Case-9/) } });
    // The refused create claimed nothing: its external_id is free.
    expect((await create('mixed-10', { external_id: 'mixed-10' })).status).toBe(200);
  });

  it('external_id is unique among live customers of the organization', async () => {
    expect((await create('holder', { external_id: 'shared-ext' })).status).toBe(200);
    const dup = await create('intruder', { external_id: 'shared-ext' });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({
      error: { status: 'ALREADY_EXISTS', message: "customer external_id 'shared-ext' is already used by customers/holder" },
    });
    expect((await get('customers/intruder')).status).toBe(404);
    // Unchanged external_id on update is fine; taking another live customer's is not.
    const renamed = await stack.rpc<{ customer: Customer }>(`${V2}/UpdateCustomer`, {
      customer: { name: 'customers/holder', external_id: 'shared-ext', display_name: 'Holder' },
    });
    expect(renamed.body.customer).toMatchObject({ displayName: 'Holder', externalId: 'shared-ext' });
    expect((await create('other', { external_id: 'other-ext' })).status).toBe(200);
    const steal = await stack.rpc(`${V2}/UpdateCustomer`, { customer: { name: 'customers/other', external_id: 'shared-ext' }, update_mask: 'external_id' });
    expect(steal.status).toBe(409);
    expect((await get('customers/other')).body.customer.externalId).toBe('other-ext');
  });

  it('two concurrent creates with the same external_id: exactly one succeeds, every round', async () => {
    for (let round = 0; round < 8; round++) {
      const externalId = `race-${round}`;
      const results = await Promise.all([create(`race-${round}-a`, { external_id: externalId }), create(`race-${round}-b`, { external_id: externalId })]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const listed = await list({ filter: `external_id = '${externalId}'` });
      expect(listed.body.customers).toHaveLength(1);
      const winner = results.find((r) => r.status === 200)!.body.customer.name;
      expect(listed.body.customers[0].name).toBe(winner);
    }
  });

  it('deleting the holder frees its external_id; the deleted customer keeps its own record', async () => {
    expect((await create('leaver', { external_id: 'reused-ext' })).status).toBe(200);
    expect((await stack.rpc(`${V2}/DeleteCustomer`, { name: 'customers/leaver' })).body).toEqual({});
    const successor = await create('successor', { external_id: 'reused-ext' });
    expect(successor.status).toBe(200);
    expect(successor.body.customer.id).toBe(sha256('reused-ext'));
    expect((await get('customers/leaver')).body.customer).toMatchObject({ externalId: 'reused-ext', deleteTime: expect.any(String) });
    const live = await list({ filter: "external_id = 'reused-ext'" });
    expect(live.body.customers.map((c) => c.name)).toEqual(['customers/successor']);
    const all = await list({ filter: "external_id = 'reused-ext'", show_deleted: true, order_by: 'name' });
    expect(all.body.customers.map((c) => c.name)).toEqual(['customers/leaver', 'customers/successor']);
    // Soft delete: the name stays taken, a second delete or an update is NOT_FOUND.
    expect((await create('leaver', { external_id: 'fresh-ext' })).status).toBe(409);
    expect((await stack.rpc(`${V2}/DeleteCustomer`, { name: 'customers/leaver' })).status).toBe(404);
    expect((await stack.rpc(`${V2}/UpdateCustomer`, { customer: { name: 'customers/leaver', display_name: 'x' } })).status).toBe(404);
  });

  it('UpdateCustomer changing external_id recomputes id and claims the new value', async () => {
    await create('mover', { external_id: 'move-from', display_name: 'Mover' });
    const moved = await stack.rpc<{ customer: Customer }>(`${V2}/UpdateCustomer`, {
      customer: { name: 'customers/mover', external_id: 'move-to' },
      update_mask: 'external_id',
    });
    expect(moved.status).toBe(200);
    expect(moved.body.customer).toMatchObject({ externalId: 'move-to', id: sha256('move-to'), displayName: 'Mover' });
    expect((await create('follower', { external_id: 'move-to' })).status).toBe(409);
    // id is output only: named in a mask it is dropped like create_time, and stays the hash.
    const masked = await stack.rpc<{ customer: Customer }>(`${V2}/UpdateCustomer`, {
      customer: { name: 'customers/mover', id: 'forged', display_name: 'Moved' },
      update_mask: 'id,display_name,create_time',
    });
    expect(masked.status).toBe(200);
    expect(masked.body.customer).toMatchObject({ id: sha256('move-to'), displayName: 'Moved' });
    const cleared = await stack.rpc(`${V2}/UpdateCustomer`, { customer: { name: 'customers/mover' }, update_mask: 'external_id' });
    expect(cleared.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/external_id/) } });
  });

  it('another organization may use the same external_id, and never sees or touches acme customers', async () => {
    const globex = await create('holder', { external_id: 'shared-ext' }, GINA);
    expect(globex.status).toBe(200);
    expect(globex.body.customer.id).toBe(sha256('shared-ext'));
    expect((await stack.rpc(`${V2}/GetCustomer`, { name: 'customers/acme-eu' }, GINA)).status).toBe(404);
    const seen = await stack.rpc<ListCustomers>(`${V2}/ListCustomers`, {}, GINA);
    expect(seen.body.customers.map((c) => c.name)).toEqual(['customers/holder']);
    expect((await stack.rpc(`${V2}/DeleteCustomer`, { name: 'customers/acme-eu' }, GINA)).status).toBe(404);
    expect((await get('customers/holder')).body.customer.displayName).toBe('Holder');
  });

  it('ListCustomers filters by display_name substring, external_id and create_time; orders and pages', async () => {
    for (let i = 0; i < 5; i++) await create(`list-${i}`, { external_id: `list-ext-${i}`, display_name: `Listed Customer ${i}` });
    const names = async (filter: string, extra: Record<string, unknown> = {}) =>
      (await list({ filter, ...extra })).body.customers.map((c) => c.name);
    expect(await names("display_name : '*customer 3*'")).toEqual(['customers/list-3']);
    expect(await names("external_id = 'list-ext-1'")).toEqual(['customers/list-1']);
    expect(await names("display_name : 'Listed*' AND create_time > '2000-01-01T00:00:00Z'", { order_by: 'display_name desc' })).toEqual(
      [4, 3, 2, 1, 0].map((i) => `customers/list-${i}`),
    );
    expect(await names("display_name : 'Listed*' AND create_time < '2000-01-01T00:00:00Z'")).toEqual([]);
    const seen: string[] = [];
    let token = '';
    do {
      const page: { body: ListCustomers } = await list({ filter: "display_name : 'Listed*'", order_by: 'external_id', page_size: 2, page_token: token });
      expect(page.body.customers.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.customers.map((c) => c.name));
      token = page.body.nextPageToken;
    } while (token);
    expect(seen).toEqual([0, 1, 2, 3, 4].map((i) => `customers/list-${i}`));
    expect((await list({ filter: "colour = 'red'" })).status).toBe(400);
  });

  it('writes need KNOWLEDGE_WRITE; reads need only membership', async () => {
    const denied = await create('bobs', { external_id: 'bob-ext' }, BOB);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: { status: 'PERMISSION_DENIED', message: expect.stringMatching(/KNOWLEDGE_WRITE/) } });
    expect((await stack.rpc(`${V2}/UpdateCustomer`, { customer: { name: 'customers/acme-eu', display_name: 'x' } }, BOB)).status).toBe(403);
    expect((await stack.rpc(`${V2}/DeleteCustomer`, { name: 'customers/acme-eu' }, BOB)).status).toBe(403);
    expect((await stack.rpc(`${V2}/GetCustomer`, { name: 'customers/acme-eu' }, BOB)).status).toBe(200);
    // A refused write claimed nothing: another customer takes the value at once.
    expect((await create('not-bobs', { external_id: 'bob-ext' })).status).toBe(200);
  });

  it('request_id: a retried create answers like the first and appends nothing', async () => {
    const body = { customer_id: 'idem', customer: { external_id: 'idem-ext' }, request_id: 'cust-retry-1' };
    const first = await stack.rpc<{ customer: Customer }>(`${V2}/CreateCustomer`, body);
    const second = await stack.rpc<{ customer: Customer }>(`${V2}/CreateCustomer`, body);
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(await eventTypes(stack, 'customer-acme:customers/idem')).toEqual(['CustomerCreated']);
    expect(await eventTypes(stack, `customerexternalid-acme:${sha256('idem-ext')}`)).toEqual(['CustomerExternalIdClaimed']);
  });

  it('v1 answers the same methods from the same data, every answer marked deprecated (RFC 9745) with its successor', async () => {
    const created = await stack.rpc<{ customer: Customer }>(`${V1}/CreateCustomer`, { customer_id: 'legacy', customer: { external_id: 'legacy-ext' } });
    expect(created.status).toBe(200);
    expect(created.body.customer).toMatchObject({ name: 'customers/legacy', id: sha256('legacy-ext') });
    expect(created.headers.get('deprecation')).toBe('@1735689600');
    expect(created.headers.get('link')).toBe('</svc.customers.v2.CustomersService/CreateCustomer>; rel="successor-version"');
    expect((await get('customers/legacy')).body.customer).toEqual(created.body.customer);

    const viaV1 = await stack.rpc<{ customer: Customer }>(`${V1}/GetCustomer`, { name: 'customers/acme-eu' });
    expect(viaV1.body.customer.externalId).toBe('tenant-4711');
    const listed = await stack.rpc<ListCustomers>(`${V1}/ListCustomers`, { filter: "external_id = 'legacy-ext'" });
    expect(listed.body.customers.map((c) => c.name)).toEqual(['customers/legacy']);
    expect(listed.headers.get('link')).toBe('</svc.customers.v2.CustomersService/ListCustomers>; rel="successor-version"');
    const updated = await stack.rpc<{ customer: Customer }>(`${V1}/UpdateCustomer`, { customer: { name: 'customers/legacy', display_name: 'Legacy' } });
    expect(updated.body.customer.displayName).toBe('Legacy');
    // The same rules, and errors carry the notice too.
    const dup = await stack.rpc(`${V1}/CreateCustomer`, { customer_id: 'legacy-2', customer: { external_id: 'legacy-ext' } });
    expect(dup.status).toBe(409);
    expect(dup.headers.get('deprecation')).toBe('@1735689600');
    expect((await stack.rpc(`${V1}/DeleteCustomer`, { name: 'customers/legacy' })).status).toBe(200);
    // v2 answers carry no deprecation notice.
    expect((await get('customers/legacy')).headers.get('deprecation')).toBeNull();
  });
});
