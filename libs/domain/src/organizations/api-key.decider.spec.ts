import type { Actor } from '../shared/decider';
import { given } from '../shared/testing';
import { type ApiKeyCommand, type ApiKeyEvent, apiKeyDecider } from './organization.decider';

const actor: Actor = { org: 'acme', actor: 'operator-config', subject: 'operator-config', permissions: [], now: '2026-01-01T00:00:00Z' };
const issued: ApiKeyEvent = { type: 'ApiKeyIssued', data: { keyId: 'alice-key', principal: 'users/alice', secretHash: 'old-hash', createTime: actor.now } };

/** IssueApiKey from the operator configuration, with stand-ins for the slow hash functions. */
function issue(overrides: Partial<Extract<ApiKeyCommand, { type: 'IssueApiKey' }>> = {}): ApiKeyCommand {
  return { type: 'IssueApiKey', actor, keyId: 'alice-key', principal: 'users/alice', hash: () => 'new-hash', matches: (h) => h === 'old-hash', ...overrides };
}

describe('API keys', () => {
  it('a verified secret whose hash is outdated is re-hashed once: a second upgrade of the same hash appends nothing', () => {
    const rehash: ApiKeyCommand = { type: 'RehashApiKey', actor, replaces: 'old-hash', secretHash: 'new-hash' };
    const events = given(apiKeyDecider, [issued]).when(rehash).then([{ type: 'ApiKeyRehashed', data: { secretHash: 'new-hash', updateTime: actor.now } }]);
    given(apiKeyDecider, [issued, ...events]).when({ ...rehash, secretHash: 'newer-hash' }).thenNothing();
    given(apiKeyDecider, [issued, ...events]).when(rehash).thenState((state) => expect(state).toEqual({ principal: 'users/alice', secretHash: 'new-hash' }));
  });

  it('an upgrade of a key rotated meanwhile appends nothing (the rotation wins)', () => {
    const rotated: ApiKeyEvent = { type: 'ApiKeyRotated', data: { principal: 'users/alice', secretHash: 'rotated-hash', updateTime: actor.now } };
    given(apiKeyDecider, [issued, rotated]).when({ type: 'RehashApiKey', actor, replaces: 'old-hash', secretHash: 'new-hash' }).thenNothing();
  });

  it('the configuration re-hashes an unchanged secret whose stored hash is outdated, and leaves a current one alone', () => {
    given(apiKeyDecider, [issued])
      .when(issue({ outdated: () => true }))
      .then([{ type: 'ApiKeyRehashed', data: { secretHash: 'new-hash', updateTime: actor.now } }]);
    given(apiKeyDecider, [issued]).when(issue({ outdated: () => false })).thenNothing();
  });

  it('hashes the configured secret only when a hash is stored (an unchanged key costs one verification)', () => {
    let hashed = 0;
    given(apiKeyDecider, [issued]).when(issue({ hash: () => `h${++hashed}` })).thenNothing();
    expect(hashed).toBe(0);
    given(apiKeyDecider, [issued])
      .when(issue({ matches: () => false }))
      .then([{ type: 'ApiKeyRotated', data: { principal: 'users/alice', secretHash: 'new-hash', updateTime: actor.now } }]);
  });
});
