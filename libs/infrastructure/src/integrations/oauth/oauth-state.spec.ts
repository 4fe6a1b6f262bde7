import { randomBytes } from 'node:crypto';
import { DomainError } from '@svc/domain/shared/domain-error';
import { OAuthStates } from './oauth-state';

const claims = { org: 'acme', subject: 'users/alice', kind: 'codehost' as const, connection: 'connections/gh', returnPath: '/back' };

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}

describe('OAuth states', () => {
  const master = randomBytes(32);
  const states = new OAuthStates(master, 600);

  it('round-trips its claims, with an id and a millisecond issue time', async () => {
    const now = new Date('2026-01-01T00:00:00.123Z');
    const { state, id, expiresAt } = await states.issue(claims, now);
    expect(expiresAt.toISOString()).toBe('2026-01-01T00:10:00.123Z');
    expect(await states.verify(state, new Date('2026-01-01T00:05:00Z'))).toEqual({ ...claims, id, issuedAtMs: now.getTime(), expiresAt: new Date('2026-01-01T00:10:00Z') });
  });

  it('refuses an expired state, an altered one and one signed under another key', async () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const { state } = await states.issue(claims, now);
    expect((await refusal(states.verify(state, new Date('2026-01-01T00:10:01Z')))).reason).toBe('OAUTH_STATE_EXPIRED');
    const [h, p, s] = state.split('.');
    const altered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), org: 'globex' })).toString('base64url');
    expect((await refusal(states.verify(`${h}.${altered}.${s}`, now))).reason).toBe('OAUTH_STATE_INVALID');
    const other = await new OAuthStates(randomBytes(32), 600).issue(claims, now);
    expect((await refusal(states.verify(other.state, now))).code).toBe('UNAUTHENTICATED');
    expect((await refusal(states.verify('x'.repeat(5000), now))).code).toBe('UNAUTHENTICATED');
  });

  it('derives the PKCE verifier again from the state id (43 characters), and its S256 challenge', () => {
    const verifier = states.codeVerifier('id-1');
    expect(verifier).toMatch(/^[\w-]{43}$/);
    expect(states.codeVerifier('id-1')).toBe(verifier);
    expect(states.codeVerifier('id-2')).not.toBe(verifier);
    expect(new OAuthStates(randomBytes(32), 600).codeVerifier('id-1')).not.toBe(verifier);
    expect(states.codeChallenge('id-1')).toMatch(/^[\w-]{43}$/);
  });
});
