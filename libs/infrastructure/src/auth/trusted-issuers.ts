import { createPublicKey, type KeyObject } from 'node:crypto';
import { decodeJwt, errors, jwtVerify, type JWTPayload } from 'jose';

/**
 * Clock tolerance for `exp` and `nbf` of every JWT we accept (ours and the issuers'): small enough
 * that an expired token stops working within a minute, large enough for ordinary clock skew.
 */
export const CLOCK_TOLERANCE_S = 30;
/** Tokens longer than this are refused before any parsing (a JWT of ours is well under 1 KiB). */
export const MAX_TOKEN_LENGTH = 8 * 1024;

/** Why a token was refused; the message names the rule, never the token. */
export class TokenRejected extends Error {}

/** An issuer the operator configuration trusts (spec/operator-config.md). */
export interface IssuerConfig {
  issuer: string;
  publicKeyPem: string;
  /** Required for bearer issuers when configured: the token's `aud` must contain it. */
  audience?: string;
  /** The only organizations its tokens may reach (spec/operator-config.md: required). */
  organizations: readonly string[];
}

interface TrustedIssuer {
  issuer: string;
  audience?: string;
  organizations: ReadonlySet<string>;
  key: KeyObject;
  algorithms: string[];
}

/**
 * JWTs from configured issuers, each verified with its configured public key: signature, `iss`,
 * `aud` (when the issuer names one), `exp` and `nbf` (with CLOCK_TOLERANCE_S). The algorithm is
 * pinned by the key's type, so `none`, HMAC with the public key as secret, or a key of another type
 * are refused by jose before any signature check.
 */
export class TrustedIssuers {
  private readonly byIssuer = new Map<string, TrustedIssuer>();

  constructor(issuers: readonly IssuerConfig[], what: string) {
    for (const config of issuers) {
      let key: KeyObject;
      try {
        key = createPublicKey(config.publicKeyPem);
      } catch (error) {
        throw new Error(`${what} '${config.issuer}': public_key_pem is not a PEM public key (${(error as Error).message})`);
      }
      this.byIssuer.set(config.issuer, {
        issuer: config.issuer,
        audience: config.audience,
        organizations: new Set(config.organizations),
        key,
        algorithms: algorithmsFor(key, `${what} '${config.issuer}'`),
      });
    }
  }

  get size(): number {
    return this.byIssuer.size;
  }

  /**
   * Whether tokens of `issuer` may act in `org`: the configuration binds each issuer to its
   * organizations, so one tenant's identity provider or workload platform never reaches another.
   */
  reaches(issuer: string, org: string): boolean {
    return this.byIssuer.get(issuer)?.organizations.has(org) === true;
  }

  /** The organizations `issuer` is bound to (empty for an unknown issuer). */
  organizationsOf(issuer: string): readonly string[] {
    return [...(this.byIssuer.get(issuer)?.organizations ?? [])];
  }

  /** The verified claims, or TokenRejected saying which rule failed. */
  async verify(token: string): Promise<JWTPayload & { iss: string; sub: string }> {
    if (token.length > MAX_TOKEN_LENGTH) throw new TokenRejected(`token longer than ${MAX_TOKEN_LENGTH} characters`);
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      throw new TokenRejected('not a JWT');
    }
    // The unverified `iss` only picks which key to verify with; jwtVerify checks it again.
    const trusted = typeof unverified.iss === 'string' ? this.byIssuer.get(unverified.iss) : undefined;
    if (!trusted) throw new TokenRejected('issuer not trusted');
    try {
      const { payload } = await jwtVerify(token, trusted.key, {
        issuer: trusted.issuer,
        audience: trusted.audience,
        algorithms: trusted.algorithms,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['exp', 'sub'],
      });
      return payload as JWTPayload & { iss: string; sub: string };
    } catch (error) {
      throw rejection(error);
    }
  }
}

/** jose's failures as TokenRejected (its messages name the claim, never the token); anything else is ours to throw. */
export function rejection(error: unknown): Error {
  if (error instanceof errors.JOSEError) return new TokenRejected(error.message);
  return error instanceof Error ? error : new Error(String(error));
}

function algorithmsFor(key: KeyObject, what: string): string[] {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return ['RS256', 'RS384', 'RS512'];
    case 'rsa-pss':
      return ['PS256', 'PS384', 'PS512'];
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      const alg = curve === 'prime256v1' ? 'ES256' : curve === 'secp384r1' ? 'ES384' : curve === 'secp521r1' ? 'ES512' : undefined;
      if (alg) return [alg];
      break;
    }
    case 'ed25519':
    case 'ed448':
      return ['EdDSA'];
  }
  throw new Error(`${what}: unsupported key type ${key.asymmetricKeyType ?? 'unknown'} (use RSA, EC P-256/384/521 or Ed25519)`);
}
