import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { changeMonitorSetupSpec } from '@svc/domain/changemonitor/change-monitor-setup.resource';
import type { Actor } from '@svc/domain/shared/decider';
import { DomainError } from '@svc/domain/shared/domain-error';
import type { JsonObject } from '@svc/domain/shared/json-path';
import { type ResourceState, resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import { type Chat, ChatError, type ChatMessage } from '@svc/infrastructure/integrations/chat/chat.port';
import type { ProjectedEvent } from '@svc/infrastructure/projection/projection';
import { SqliteReadStore } from '@svc/infrastructure/read-store/sqlite-read-store';
import type { RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { changeMonitorArea, sendChangeMonitorDm } from '.';

const decider = resourceDecider(changeMonitorSetupSpec);
const actor = (user: string, org = 'acme'): Actor => ({ org, actor: `users/${user}`, subject: `users/${user}`, permissions: [], now: '2026-01-01T00:00:00Z' });
const verified = (user: string) => ({ chatConnection: 'connections/slack', chatUserId: `U0${user.toUpperCase()}`, channelId: `D0${user.toUpperCase()}`, verifyTime: '2026-01-01T00:00:00Z' });

/** A chat that records what it was asked to post (the port's contract suite checks the real adapter). */
class RecordingChat implements Partial<Chat> {
  posted: ChatMessage[] = [];
  fail?: ChatError;
  async postMessage(message: ChatMessage) {
    if (this.fail) throw this.fail;
    this.posted.push(message);
    return { channel: message.channel, ts: '1.000100' };
  }
}

describe('change-monitor setups and the DM seam', () => {
  let dir: string;
  let reads: SqliteReadStore;
  let pos = 0;
  const chat = new RecordingChat();
  const deps = () => ({ reads, chatOf: async () => chat as unknown as Chat });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-change-monitor-'));
    reads = new SqliteReadStore({ file: join(dir, 'read.db') });
    chat.posted = [];
    chat.fail = undefined;
  });
  afterEach(async () => {
    await reads.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Puts the setup of `user` through the decider and the area's projection. */
  async function put(user: string, resource: JsonObject, org = 'acme', state: ResourceState = decider.initialState()): Promise<ResourceState> {
    const name = `change-monitor-setups/${user}`;
    const events = decider.decide({ type: 'Put', actor: actor(user, org), id: user, resource: { user: `users/${user}`, ...resource } }, state);
    let next = state;
    for (const event of events) {
      next = decider.evolve(next, event);
      pos += 1;
      const record = { streamId: resourceStreamId(changeMonitorSetupSpec, org, name), revision: BigInt(pos), type: event.type, data: event.data } as unknown as RecordedEvent;
      const ops = await changeMonitorArea.projections[0].handle({ event: event as unknown as ProjectedEvent['event'], record, org, resourceName: name, pos });
      await reads.commit({ checkpoint: changeMonitorArea.projections[0].name, position: { commit: BigInt(pos), prepare: BigInt(pos) }, ops });
    }
    return next;
  }

  it('given no verified destination, when DMs are enabled, then the setup refuses', () => {
    expect(() => decider.decide({ type: 'Put', actor: actor('al'), id: 'al', resource: { user: 'users/al', chatDmEnabled: true } }, decider.initialState())).toThrow(
      expect.objectContaining({ code: 'FAILED_PRECONDITION', reason: 'CHAT_DM_NOT_VERIFIED' }) as unknown as DomainError,
    );
    expect(() => decider.decide({ type: 'Put', actor: actor('al'), id: 'al', resource: { user: 'users/bo', chatDmEnabled: false } }, decider.initialState())).toThrow(/user must be the member/);
  });

  it('sends to the author found by member or by linked login, only when enabled and verified', async () => {
    const alice = await put('alice', { chatDmEnabled: false, codehostLogin: 'alice-gh', verifiedChatDestination: verified('alice') });
    expect(await sendChangeMonitorDm(deps(), 'acme', { user: 'users/alice' }, 'plan posted')).toMatchObject({ sent: false, reason: 'DISABLED' });
    await put('alice', { chatDmEnabled: true }, 'acme', alice);
    expect(await sendChangeMonitorDm(deps(), 'acme', { codehostLogin: 'Alice-GH' }, 'plan posted')).toEqual({ sent: true, channel: 'D0ALICE', ts: '1.000100' });
    expect(chat.posted).toEqual([{ channel: 'D0ALICE', text: 'plan posted' }]);
    // Scoped to the organization: another one's login names no one.
    expect(await sendChangeMonitorDm(deps(), 'globex', { codehostLogin: 'alice-gh' }, 'x')).toMatchObject({ sent: false, reason: 'NOT_LINKED' });
    expect(await sendChangeMonitorDm(deps(), 'acme', { user: 'users/nobody' }, 'x')).toMatchObject({ sent: false, reason: 'NOT_LINKED' });
  });

  it('sends to no one when two members claim the login, and reports a chat failure instead of throwing', async () => {
    await put('alice', { chatDmEnabled: true, codehostLogin: 'shared', verifiedChatDestination: verified('alice') });
    await put('bob', { chatDmEnabled: true, codehostLogin: 'shared', verifiedChatDestination: verified('bob') });
    expect(await sendChangeMonitorDm(deps(), 'acme', { codehostLogin: 'shared' }, 'x')).toMatchObject({ sent: false, reason: 'AMBIGUOUS' });
    chat.fail = new ChatError('RESOURCE_EXHAUSTED', 'slack: chat.postMessage is rate limited; retry after 30 s', 30);
    expect(await sendChangeMonitorDm(deps(), 'acme', { user: 'users/bob' }, 'x')).toEqual({ sent: false, reason: 'UNAVAILABLE', message: expect.stringContaining('rate limited') });
    expect(chat.posted).toEqual([]);
  });
});
