/**
 * The `state` of an OAuth start: a JWS (HS256, jose) under a key derived from the master key
 * (KEY_PURPOSES.oauthState), so any api instance of the deployment verifies what another issued. It
 * binds the organization, the caller, the kind of connection, the connection re-authorized (empty
 * to create one) and the return path, and expires (`integrations.oauth.state_ttl_seconds`). The
 * callback needs nothing else: no server-side session.
 *
 * The PKCE code verifier is never sent anywhere but the token endpoint: it is an HMAC of the state's
 * id under another derived key, so the callback derives it again instead of storing it.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import { DomainError } from '@svc/domain/shared/domain-error';
import { deriveKey, KEY_PURPOSES } from '../../config/secrets';
import type { OAuthKind } from '../../config/integrations-config';
import { OAUTH_KINDS } from '../../config/integrations-config';

const ISSUER = 'svc';
const AUDIENCE = 'svc/oauth-callback';
/** Longest state the callback reads (a JWS of the claims below is far shorter). */
export const MAX_STATE_LENGTH = 4096;

export interface OAuthStateClaims {
  org: string;
  /** The caller who started the flow (`users/{id}`). */
  subject: string;
  kind: OAuthKind;
  /** `connections/{id}` to re-authorize; empty to create one. */
  connection: string;
  returnPath: string;
}

export interface VerifiedState extends OAuthStateClaims {
  id: string;
  /** Issue time in milliseconds: a connection takes no state older than the last it used. */
  issuedAtMs: number;
  expiresAt: Date;
}

export class OAuthStates {
  private readonly key: Uint8Array;
  private readonly pkceKey: Buffer;

  constructor(
    master: Buffer,
    private readonly ttlSeconds: number,
  ) {
    this.key = new Uint8Array(deriveKey(master, KEY_PURPOSES.oauthState));
    this.pkceKey = deriveKey(master, KEY_PURPOSES.oauthPkce);
  }

  async issue(claims: OAuthStateClaims, now = new Date()): Promise<{ state: string; id: string; expiresAt: Date }> {
    const id = randomUUID();
    const expiresAt = new Date(now.getTime() + this.ttlSeconds * 1000);
    const state = await new SignJWT({ org: claims.org, kind: claims.kind, conn: claims.connection, ret: claims.returnPath, iat_ms: now.getTime() })
      .setProtectedHeader({ alg: 'HS256', typ: 'oauth-state+jwt' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(claims.subject)
      .setJti(id)
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.key);
    return { state, id, expiresAt };
  }

  /** The state's claims; UNAUTHENTICATED when it is expired, altered or not ours (the message says which, never the token). */
  async verify(state: string, now = new Date()): Promise<VerifiedState> {
    if (state.length === 0 || state.length > MAX_STATE_LENGTH) throw refused('the OAuth state is missing or too long');
    try {
      const { payload } = await jwtVerify(state, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
        typ: 'oauth-state+jwt',
        currentDate: now,
        clockTolerance: 0,
      });
      const { org, kind, conn, ret, iat_ms: issuedAtMs, sub, jti, exp } = payload as Record<string, unknown>;
      if (
        typeof org !== 'string' ||
        typeof sub !== 'string' ||
        typeof jti !== 'string' ||
        typeof conn !== 'string' ||
        typeof ret !== 'string' ||
        typeof issuedAtMs !== 'number' ||
        typeof exp !== 'number' ||
        !OAUTH_KINDS.includes(kind as OAuthKind)
      ) {
        throw refused('the OAuth state is not one this service issued');
      }
      return { org, subject: sub, kind: kind as OAuthKind, connection: conn, returnPath: ret, id: jti, issuedAtMs, expiresAt: new Date(exp * 1000) };
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (error instanceof errors.JWTExpired) throw refused('the OAuth state has expired; start again', 'OAUTH_STATE_EXPIRED');
      throw refused('the OAuth state is not valid (altered, or not issued by this service)');
    }
  }

  /** The PKCE verifier of a state (RFC 7636: 43 characters of base64url). */
  codeVerifier(stateId: string): string {
    return createHmac('sha256', this.pkceKey).update(stateId).digest('base64url');
  }

  /** Its S256 challenge. */
  codeChallenge(stateId: string): string {
    return createHash('sha256').update(this.codeVerifier(stateId)).digest('base64url');
  }
}

const refused = (message: string, reason = 'OAUTH_STATE_INVALID') => new DomainError('UNAUTHENTICATED', message, reason);
