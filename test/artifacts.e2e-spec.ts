import { readFileSync } from 'node:fs';
import { ALICE, BOB, GINA, REQUEST_INFO, Stack } from './support/harness';
import { repeated, sha256Of, upload } from './support/uploads';

const MIB = 1024 * 1024;
const LIMIT = 64 * MIB;

/** The api's peak resident set (Linux: VmHWM), or null where /proc does not tell. */
function peakRss(pid: number | undefined): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

describe('artifact upload (PUT /v1/artifacts/{sha256})', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(() => stack.destroy());

  const api = () => stack.processes[1]?.pid;

  it('streams a 64 MiB upload into the store without holding it (the api peak RSS grows by less than the upload)', async () => {
    const content = repeated(Buffer.alloc(MIB, 7), LIMIT);
    // Warm up (first request, JIT, heap) so the peak measures the upload alone.
    const warm = repeated(Buffer.alloc(MIB, 6), 4 * MIB);
    expect((await upload(stack.baseUrl, warm.sha256, warm.chunks(), { as: ALICE })).status).toBe(200);
    const before = peakRss(api());
    const res = await upload(stack.baseUrl, content.sha256, content.chunks(), { as: ALICE });
    expect(res).toEqual({ status: 200, body: { sha256: content.sha256, sizeBytes: String(LIMIT), expireTime: expect.any(String) } });
    const after = peakRss(api());
    if (before !== null && after !== null) expect(after - before).toBeLessThan(LIMIT / 2);
    // Uploading it again stores nothing more and answers the same, the hold renewed from now.
    const again = await upload(stack.baseUrl, content.sha256, content.chunks(), { as: ALICE, contentLength: LIMIT });
    expect(again).toEqual({ status: 200, body: { ...res.body, expireTime: expect.any(String) } });
    expect(Date.parse(again.body.expireTime as string)).toBeGreaterThanOrEqual(Date.parse(res.body.expireTime as string));
  });

  it('refuses one byte over 64 MiB: by Content-Length before reading, and while streaming a chunked body', async () => {
    const over = repeated(Buffer.alloc(MIB, 8), LIMIT + 1);
    const declared = await upload(stack.baseUrl, over.sha256, over.chunks(), { as: ALICE, contentLength: LIMIT + 1 });
    expect(declared.status).toBe(400);
    expect(declared.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining(`${LIMIT} bytes`) } });
    const chunked = await upload(stack.baseUrl, over.sha256, over.chunks(), { as: ALICE });
    expect(chunked.status).toBe(400);
    expect(chunked.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', details: [expect.objectContaining({ reason: 'ARTIFACT_TOO_LARGE' }), REQUEST_INFO] } });
    // Nothing was stored: an investigation referring to it fails.
    const create = await stack.rpc('svc.investigations.v1.InvestigationService/CreateInvestigation', {
      investigation: { display_name: 'x' },
      artifacts: [{ name: 'big.bin', sha256: over.sha256, content_type: 'application/octet-stream' }],
    });
    expect(create.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION' } });
  });

  it('refuses content whose sha256 differs from the name, storing nothing', async () => {
    const named = sha256Of('what I meant to send');
    const res = await upload(stack.baseUrl, named, Buffer.from('something else'), { as: ALICE });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', details: [expect.objectContaining({ reason: 'ARTIFACT_HASH_MISMATCH' }), REQUEST_INFO] } });
    const create = await stack.rpc('svc.investigations.v1.InvestigationService/CreateInvestigation', {
      investigation: { display_name: 'x' },
      artifacts: [{ name: 'a.txt', sha256: named, content_type: 'text/plain' }],
    });
    expect(create.body).toMatchObject({ error: { status: 'FAILED_PRECONDITION' } });
  });

  it('takes application/octet-stream only, and a sha256 name only', async () => {
    const bytes = Buffer.from('{"a": 1}');
    for (const contentType of ['application/json', 'text/plain', null]) {
      const res = await upload(stack.baseUrl, sha256Of(bytes), bytes, { as: ALICE, contentType });
      expect([contentType, res.status, res.body]).toEqual([contentType, 400, { error: expect.objectContaining({ status: 'INVALID_ARGUMENT' }) }]);
    }
    const badName = await upload(stack.baseUrl, 'ABCDEF', bytes, { as: ALICE });
    expect(badName.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('sha256') } });
  });

  it('keeps octet-stream bodies away from every other route', async () => {
    const res = await stack.request('POST', '/svc.notes.v1.NotesService/CreateNote', {
      rawBody: 'raw bytes',
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('application/json') } });
  });

  it('needs a credential and INVESTIGATIONS_WRITE; any organization may upload its own', async () => {
    const bytes = Buffer.from('permission check');
    expect((await upload(stack.baseUrl, sha256Of(bytes), bytes, { as: null })).status).toBe(401);
    const bob = await upload(stack.baseUrl, sha256Of(bytes), bytes, { as: BOB });
    expect(bob).toMatchObject({ status: 403, body: { error: { status: 'PERMISSION_DENIED', message: expect.stringContaining('INVESTIGATIONS_WRITE') } } });
    expect((await upload(stack.baseUrl, sha256Of(bytes), bytes, { as: GINA })).status).toBe(200);
  });
});
