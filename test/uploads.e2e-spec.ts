/**
 * Uploads are held per organization (issue 16, items 1, 3 "Storage" and 4): content is referenceable
 * only by the organization that uploaded it, a foreign and an unknown sha256 answer alike, each
 * organization's holds count against its quota, unreferenced uploads expire and their bytes are
 * reclaimed, and downloads can never run in a browser.
 */
import { openSqlite } from '@svc/infrastructure/sqlite/driver';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ALICE, type Credentials, GINA, Stack } from './support/harness';
import { sha256Of, upload } from './support/uploads';

const I = 'svc.investigations.v1.InvestigationService';
const A = 'svc.nxagent.v2.AgentService';
type Body = { error?: { status: string; message: string; details?: Array<Record<string, unknown>> }; investigation?: { name: string; session: string } };

function basic({ username, password }: Credentials): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/** Every file under `dir` (none when it does not exist). */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('uploads held per organization', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ env: { SVC_ARTIFACT_QUOTA_BYTES: '100000' } });
  });
  afterAll(() => stack.destroy());

  const create = (artifacts: unknown[], as: Credentials) =>
    stack.rpc<Body>(`${I}/CreateInvestigation`, { investigation: { display_name: 'x' }, artifacts }, as);
  const investigations = async (as: Credentials) =>
    ((await stack.rpc<{ investigations?: unknown[] }>(`${I}/ListInvestigations`, { page_size: 1000 }, as)).body.investigations ?? []).length;

  it("refuses another organization's content exactly like content never uploaded, and creates nothing", async () => {
    const secret = Buffer.from('acme payroll 2026: confidential\n');
    const sha = sha256Of(secret);
    expect((await upload(stack.baseUrl, sha, secret, { as: ALICE })).status).toBe(200);
    const before = await investigations(GINA);

    const foreign = await create([{ name: 'a.txt', sha256: sha, content_type: 'text/plain' }], GINA);
    const unknownSha = sha256Of('nobody uploaded this');
    const unknown = await create([{ name: 'a.txt', sha256: unknownSha, content_type: 'text/plain' }], GINA);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ status: 'FAILED_PRECONDITION' });
    // Same status, reason and message but for the sha256 itself: nothing tells that acme holds it.
    expect(unknown.status).toBe(foreign.status);
    expect(unknown.body.error?.message.replace(unknownSha, '<sha>')).toBe(foreign.body.error?.message.replace(sha, '<sha>'));
    expect(unknown.body.error?.details?.[0]).toEqual(foreign.body.error?.details?.[0]);
    expect(await investigations(GINA)).toBe(before);

    // Globex uploading the same bytes holds its own copy, and then may reference it.
    expect((await upload(stack.baseUrl, sha, secret, { as: GINA })).status).toBe(200);
    const made = await create([{ name: 'a.txt', sha256: sha, content_type: 'text/plain' }], GINA);
    expect(made.status).toBe(200);
    const got = await stack.rpc<{ artifact: { downloadUri: string } }>(`${A}/GetArtifact`, { session: made.body.investigation!.session, name: 'a.txt' }, GINA);
    const download = await fetch(`${stack.baseUrl}${got.body.artifact.downloadUri}`, { headers: { authorization: basic(GINA) } });
    expect([download.status, await download.text()]).toEqual([200, secret.toString()]);
    // Two organizations, two stored copies: neither can take the other's away.
    const held = filesUnder(join(stack.dataDir, 'blobs', 'held'));
    expect(held.filter((file) => file.endsWith(sha)).map((file) => file.split('/').at(-3)).sort()).toEqual(['acme', 'globex']);
  });

  it('an investigation its own rules refuse appends nothing: no hold marked referenced, no investigator agent', async () => {
    const bytes = Buffer.from('refused investigation');
    expect((await upload(stack.baseUrl, sha256Of(bytes), bytes, { as: GINA })).status).toBe(200);
    const log = openSqlite(join(stack.dataDir, 'events.db'), { readonly: true });
    const head = () => (log.prepare('SELECT coalesce(max(pos), 0) AS pos FROM events').get() as { pos: number }).pos;
    try {
      const before = head();
      const refused = await stack.rpc<Body>(`${I}/CreateInvestigation`, { investigation: { display_name: 'x'.repeat(300) }, artifacts: [{ name: 'a', sha256: sha256Of(bytes), content_type: 'text/plain' }] }, GINA);
      expect(refused.body.error).toMatchObject({ status: 'INVALID_ARGUMENT', message: expect.stringContaining('display_name') });
      expect(head()).toBe(before);
    } finally {
      log.close();
    }
  });

  it('counts each organization against its own quota (RESOURCE_EXHAUSTED), before reading a declared body and while streaming one', async () => {
    const sixty = (fill: number) => Buffer.alloc(60_000, fill);
    const first = sixty(1);
    expect((await upload(stack.baseUrl, sha256Of(first), first, { as: ALICE })).status).toBe(200);
    // Holding it already, uploading it again needs no more room.
    expect((await upload(stack.baseUrl, sha256Of(first), first, { as: ALICE })).status).toBe(200);
    const second = sixty(2);
    const declared = await upload(stack.baseUrl, sha256Of(second), second, { as: ALICE, contentLength: second.length });
    expect(declared.status).toBe(429);
    expect(declared.body).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('SVC_ARTIFACT_QUOTA_BYTES'), details: [expect.objectContaining({ reason: 'ARTIFACT_QUOTA_EXCEEDED' }), expect.anything()] } });
    async function* chunked() {
      yield second.subarray(0, 30_000);
      yield second.subarray(30_000);
    }
    expect((await upload(stack.baseUrl, sha256Of(second), chunked(), { as: ALICE })).status).toBe(429);
    // Nothing of it was kept, and globex's room is its own.
    expect(filesUnder(join(stack.dataDir, 'blobs')).filter((file) => file.endsWith(sha256Of(second)))).toEqual([]);
    expect((await upload(stack.baseUrl, sha256Of(second), second, { as: GINA })).status).toBe(200);
  });

  it('validates content types and encodings when the investigation is created; downloads are never run or sniffed', async () => {
    const page = Buffer.from('<script>alert(document.cookie)</script>');
    expect((await upload(stack.baseUrl, sha256Of(page), page, { as: GINA })).status).toBe(200);
    for (const [contentType, encoding, field] of [['text/plain;\u0001x', undefined, 'content_type'], ['text/html\r\nx-evil: 1', undefined, 'content_type'], ['text/html', 'x-evil', 'content_encoding']] as const) {
      const refused = await create([{ name: 'p', sha256: sha256Of(page), content_type: contentType, content_encoding: encoding }], GINA);
      expect(refused.body.error).toMatchObject({ status: 'INVALID_ARGUMENT', message: expect.stringContaining(`artifacts[0].${field}`) });
    }
    const made = await create(
      [
        { name: 'page.html', sha256: sha256Of(page), content_type: 'text/html; charset=utf-8' },
        { name: 'notes/page.txt', sha256: sha256Of(page), content_type: 'text/plain' },
      ],
      GINA,
    );
    expect(made.status).toBe(200);
    const session = made.body.investigation!.session;
    const headersOf = async (name: string) => {
      const res = await fetch(`${stack.baseUrl}/v1/${session}/artifacts/${name}`, { headers: { authorization: basic(GINA) } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      return res.headers;
    };
    const html = await headersOf('page.html');
    expect(html.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.get('x-content-type-options')).toBe('nosniff');
    expect(html.get('content-security-policy')).toContain('sandbox');
    expect(html.get('content-disposition')).toMatch(/^attachment; filename="page\.html"/);
    const text = await headersOf('notes/page.txt');
    expect(text.get('content-disposition')).toMatch(/^inline; filename="page\.txt"/);
    expect(text.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('uploads no investigation references expire', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ env: { SVC_ARTIFACT_QUOTA_BYTES: '100000', SVC_ARTIFACT_UPLOAD_TTL_S: '3', SVC_ARTIFACT_SWEEP_MS: '200' } });
  });
  afterAll(() => stack.destroy());

  it('expires an unreferenced upload: its bytes are deleted, its quota freed, its sha256 no longer referenceable; a referenced one stays', async () => {
    const kept = Buffer.alloc(40_000, 3);
    const dropped = Buffer.alloc(50_000, 4);
    const answer = await upload(stack.baseUrl, sha256Of(dropped), dropped, { as: ALICE });
    expect(answer).toMatchObject({ status: 200, body: { sha256: sha256Of(dropped), sizeBytes: '50000', expireTime: expect.any(String) } });
    expect(Date.parse(answer.body.expireTime as string) - Date.now()).toBeLessThanOrEqual(3000);
    expect((await upload(stack.baseUrl, sha256Of(kept), kept, { as: ALICE })).status).toBe(200);
    const made = await stack.rpc<Body>(`${I}/CreateInvestigation`, { investigation: { display_name: 'keeps' }, artifacts: [{ name: 'k.bin', sha256: sha256Of(kept), content_type: 'application/octet-stream' }] });
    expect(made.status).toBe(200);
    // Full: 90,000 of 100,000 bytes held.
    const third = Buffer.alloc(30_000, 5);
    expect((await upload(stack.baseUrl, sha256Of(third), third, { as: ALICE, contentLength: third.length })).status).toBe(429);

    await until(() => Promise.resolve(filesUnder(join(stack.dataDir, 'blobs')).some((f) => f.endsWith(sha256Of(dropped)))), (present) => !present, 'the expired bytes to be deleted');
    const late = await stack.rpc<Body>(`${I}/CreateInvestigation`, { investigation: { display_name: 'late' }, artifacts: [{ name: 'd.bin', sha256: sha256Of(dropped), content_type: 'application/octet-stream' }] });
    expect(late.body.error).toMatchObject({ status: 'FAILED_PRECONDITION', message: expect.stringContaining(sha256Of(dropped)) });
    expect((await upload(stack.baseUrl, sha256Of(third), third, { as: ALICE, contentLength: third.length })).status).toBe(200);

    // The referenced upload outlived its expire time: its artifact still downloads.
    const download = await fetch(`${stack.baseUrl}/v1/${made.body.investigation!.session}/artifacts/k.bin`, { headers: { authorization: basic(ALICE) } });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(kept)).toBe(true);
  });
});
