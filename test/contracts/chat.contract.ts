/**
 * What every chat adapter must do (chat.port.ts), against a workspace the factory seeds:
 *   channels: 250 channels `#bulk-000`… the bot is a member of, `#ops` (C0OPS, member), `#secret`
 *   (G0SEC, private, member), `#lobby` (C0LOBBY, not a member), `#old` (C0OLD, archived, member);
 *   users: alice (U0ALICE, alice@example.com), bob (U0BOB, deleted).
 */
import { type Chat, ChatError, MAX_CHAT_MESSAGE_CHARS } from '@svc/infrastructure/integrations/chat/chat.port';

export interface ChatWorkspace {
  chat: Chat;
  /** Messages the workspace received, as `{channel, text, threadTs}`. */
  posted(): Array<{ channel: string; text: string; threadTs?: string }>;
  close(): Promise<void>;
}

export const BULK_CHANNELS = 250;

async function failure(work: Promise<unknown>): Promise<ChatError> {
  const error = await work.then(
    () => new Error('no error'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChatError);
  return error as ChatError;
}

export function describeChatContract(name: string, open: () => Promise<ChatWorkspace>): void {
  describe(`chat contract: ${name}`, () => {
    let ws: ChatWorkspace;
    beforeAll(async () => {
      ws = await open();
    });
    afterAll(() => ws.close());

    it('reads the bot membership across pages: private channels in, archived and non-member channels out', async () => {
      const membership = await ws.chat.botMembership();
      expect(membership.complete).toBe(true);
      const names = membership.channels.map((c) => c.name);
      expect(names).toHaveLength(BULK_CHANNELS + 2);
      expect(membership.channels).toEqual(expect.arrayContaining([{ id: 'C0OPS', name: '#ops' }, { id: 'G0SEC', name: '#secret' }]));
      expect(names).not.toContain('#lobby');
      expect(names).not.toContain('#old');
    });

    it('stops reading membership at the bound and says so', async () => {
      const membership = await ws.chat.botMembership(30);
      expect(membership).toMatchObject({ complete: false });
      expect(membership.channels).toHaveLength(30);
    });

    it('posts a message, and a reply in a thread', async () => {
      const posted = await ws.chat.postMessage({ channel: 'C0OPS', text: 'deploy finished' });
      expect(posted).toEqual({ channel: 'C0OPS', ts: expect.stringMatching(/^\d+\.\d+$/) });
      await ws.chat.postMessage({ channel: 'C0OPS', text: 'details', threadTs: posted.ts });
      expect(ws.posted().slice(-2)).toEqual([
        { channel: 'C0OPS', text: 'deploy finished' },
        { channel: 'C0OPS', text: 'details', threadTs: posted.ts },
      ]);
    });

    it('answers the platform refusals with their codes', async () => {
      expect(await failure(ws.chat.postMessage({ channel: 'C0NOPE', text: 'x' }))).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('channel_not_found') });
      expect(await failure(ws.chat.postMessage({ channel: 'C0LOBBY', text: 'x' }))).toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('not_in_channel') });
      expect(await failure(ws.chat.postMessage({ channel: 'C0OLD', text: 'x' }))).toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('is_archived') });
    });

    it('refuses bad input before any call: empty or too long text, a channel that is no platform id', async () => {
      const before = ws.posted().length;
      expect(await failure(ws.chat.postMessage({ channel: 'C0OPS', text: '  ' }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(await failure(ws.chat.postMessage({ channel: 'C0OPS', text: 'x'.repeat(MAX_CHAT_MESSAGE_CHARS + 1) }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(await failure(ws.chat.postMessage({ channel: '#ops', text: 'x' }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(ws.posted()).toHaveLength(before);
    });

    it('opens a direct message (the same conversation twice) and posts to it', async () => {
      const dm = await ws.chat.openDirectMessage('U0ALICE');
      expect(await ws.chat.openDirectMessage('U0ALICE')).toBe(dm);
      await ws.chat.postMessage({ channel: dm, text: 'hello alice' });
      expect(ws.posted().at(-1)).toEqual({ channel: dm, text: 'hello alice' });
      expect(await failure(ws.chat.openDirectMessage('U0NOBODY'))).toMatchObject({ code: 'NOT_FOUND' });
    });

    it('looks users up by id and by e-mail; an unknown one is null', async () => {
      expect(await ws.chat.userById('U0ALICE')).toMatchObject({ id: 'U0ALICE', name: 'alice', email: 'alice@example.com', deleted: false, isBot: false });
      expect(await ws.chat.userByEmail('alice@example.com')).toMatchObject({ id: 'U0ALICE' });
      expect(await ws.chat.userById('U0BOB')).toMatchObject({ deleted: true });
      expect(await ws.chat.userById('U0NOBODY')).toBeNull();
      expect(await ws.chat.userByEmail('nobody@example.com')).toBeNull();
      expect(await failure(ws.chat.userByEmail('not an address'))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    });
  });
}
