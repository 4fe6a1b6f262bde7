import { createLocalJWKSet, type JSONWebKeySet, jwtVerify, SignJWT } from 'jose';
import { CLOCK_TOLERANCE_S, MAX_TOKEN_LENGTH, rejection, TokenRejected } from './trusted-issuers';
import type { SigningKey } from './session-signing-key';

/** `iss` of the agent session tokens this service mints; no other issuer is accepted as Svc-Session. */
export const SESSION_TOKEN_ISSUER = 'urn:svc:agent-session';
/** Lifetime of a session token (docs/decisions.md, "Authentication"): short, refreshed by minting again. */
export const SESSION_TOKEN_TTL_S = 15 * 60;

/** What a session token says: the organization, `agents/{agent}`, the session, and the workload that minted it. */
export interface SessionClaims {
  org: string;
  /** `agents/{agent}` */
  subject: string;
  /** `agents/{agent}/sessions/{session}` */
  session: string;
  /** Issuer of the workload proof the token was minted for. */
  provider: string;
  /** Subject of that proof. */
  externalIdentity: string;
}

/** Mints and verifies agent session tokens (ES256) and publishes the public key as a JWKS. */
export class SessionTokens {
  private readonly keySet: ReturnType<typeof createLocalJWKSet>;

  constructor(
    private readonly key: SigningKey,
    private readonly ttlSeconds = SESSION_TOKEN_TTL_S,
  ) {
    this.keySet = createLocalJWKSet(this.jwks());
  }

  /** The public half only, as served at /.well-known/jwks.json. */
  jwks(): JSONWebKeySet {
    return { keys: [this.key.publicJwk] };
  }

  async mint(claims: SessionClaims, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
    const issuedAt = Math.floor(now.getTime() / 1000);
    const expiresAt = new Date((issuedAt + this.ttlSeconds) * 1000);
    const token = await new SignJWT({ org: claims.org, session: claims.session, provider: claims.provider, ext: claims.externalIdentity })
      .setProtectedHeader({ alg: 'ES256', kid: this.key.publicJwk.kid, typ: 'JWT' })
      .setIssuer(SESSION_TOKEN_ISSUER)
      .setSubject(claims.subject)
      .setIssuedAt(issuedAt)
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.key.privateKey);
    return { token, expiresAt };
  }

  /** The claims of a token we minted and that has not expired; TokenRejected otherwise. */
  async verify(token: string): Promise<SessionClaims & { expiresAt: Date }> {
    if (token.length > MAX_TOKEN_LENGTH) throw new TokenRejected(`token longer than ${MAX_TOKEN_LENGTH} characters`);
    try {
      const { payload } = await jwtVerify(token, this.keySet, {
        issuer: SESSION_TOKEN_ISSUER,
        algorithms: ['ES256'],
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['exp', 'sub'],
      });
      const { org, session, provider, ext, sub, exp } = payload;
      if (typeof org !== 'string' || typeof session !== 'string' || typeof sub !== 'string' || !session.startsWith(`${sub}/sessions/`)) {
        throw new TokenRejected('session token claims are incomplete');
      }
      return {
        org,
        subject: sub,
        session,
        provider: typeof provider === 'string' ? provider : '',
        externalIdentity: typeof ext === 'string' ? ext : '',
        expiresAt: new Date((exp as number) * 1000),
      };
    } catch (error) {
      throw rejection(error);
    }
  }
}
