/**
 * History and as-of reads fold a stream, so they are admitted per organization (issue 16, "One
 * member can slow every tenant"): a burst from one member waits or is told to retry, another
 * organization's reads still run, and a long stream is read in chunks as far as the page needs.
 */
import { BOB, GINA, Stack } from './support/harness';

const NOTES = 'svc.notes.v1.NotesService';
const UPDATES = 620; // past one read chunk (500), so every read yields to the event loop midway

describe('history reads are admitted per organization', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ env: { SVC_HISTORY_READS_PER_ORG: '1', SVC_HISTORY_READS: '4' } });
  });
  afterAll(() => stack.destroy());

  it("refuses one organization's burst past its queue with 429 and Retry-After, while another organization reads", async () => {
    expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'hot', note: { display_name: 'v0' } })).status).toBe(200);
    for (let i = 1; i <= UPDATES; i++) {
      expect((await stack.rpc(`${NOTES}/UpdateNote`, { note: { name: 'notes/hot', display_name: `v${i}` }, update_mask: 'display_name' })).status).toBe(200);
    }
    expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'mine', note: { display_name: 'globex' } }, GINA)).status).toBe(200);

    const burst = Array.from({ length: 12 }, () => stack.request<{ events?: Array<{ version: number }> }>('GET', '/v1/notes/hot:history?orderBy=time%20desc&pageSize=5', { as: BOB }));
    const other = stack.request<{ events: unknown[] }>('GET', '/v1/notes/mine:history', { as: GINA });
    const answers = await Promise.all(burst);
    const refused = answers.filter((a) => a.status === 429);
    const served = answers.filter((a) => a.status === 200);
    expect(refused.length).toBeGreaterThan(0);
    expect(served.length).toBeGreaterThan(0);
    expect(refused.length + served.length).toBe(12);
    for (const answer of refused) {
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(answer.body).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED', details: [expect.objectContaining({ reason: 'CONCURRENCY_LIMIT_EXCEEDED' }), expect.anything()] } });
    }
    // Every read that ran answered the newest page of the whole stream.
    for (const answer of served) expect(answer.body.events?.map((e) => e.version)).toEqual([620, 619, 618, 617, 616]);
    expect((await other).status).toBe(200);
    // Once the burst is over, the member reads again.
    expect((await stack.request('GET', '/v1/notes/hot:asOf?version=310', { as: BOB })).body).toMatchObject({ resource: { displayName: 'v310' }, version: 310 });
  });
});
