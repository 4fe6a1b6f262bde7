import { Inject, Injectable } from '@nestjs/common';
import { promisify } from 'node:util';
import { scrypt, timingSafeEqual } from 'node:crypto';
import { effectivePermissions } from '@svc/domain/roles/access.decider';
import { CredentialDigest } from '@svc/infrastructure/auth/secret-hash';
import type { Doc, ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import type { Principal } from './principal';

const scryptAsync = promisify(scrypt) as (secret: string, salt: Buffer, length: number, options: object) => Promise<Buffer>;
const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;

interface Verified {
  keyPos: unknown;
  at: number;
}

/**
 * Verifies API key pairs. The slow hash runs once per pair per minute at most: a verified pair is
 * remembered under a keyed digest together with the key document's position, so a rotated or
 * reassigned key is verified afresh. Roles are read on every request, so a changed membership or a
 * deleted role takes effect on the next request.
 */
@Injectable()
export class CredentialsService {
  private readonly digest = new CredentialDigest();
  private readonly verified = new Map<string, Verified>();

  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async authenticate(username: string, secret: string): Promise<Principal | null> {
    const key = await this.reads.collection('apikeys').findOne({ _id: `apikey|${username}` });
    if (!key || typeof key.secretHash !== 'string') return null;
    if (!(await this.verify(username, secret, key))) return null;
    const org = String(key._org);
    const principal = String(key.principal);
    const member = await this.reads.collection('members').findOne({ _id: `${org}|${principal}` });
    if (!member) return null;
    return {
      org,
      actor: principal,
      subject: principal,
      session: '',
      authenticator: 'basic',
      provider: '',
      externalIdentity: '',
      permissions: await this.permissionsOf(org, member),
    };
  }

  private async permissionsOf(org: string, member: Doc): Promise<string[]> {
    const held = Array.isArray(member.roles) ? (member.roles as string[]) : [];
    if (held.length === 0) return [];
    const roles = await this.reads.collection('roles').find({ _org: org, name: { $in: held } });
    return effectivePermissions(
      held,
      roles.map((r) => ({ name: String(r.name), permissions: r.permissions as string[], deleteTime: r.deleteTime as string | undefined })),
    );
  }

  private async verify(username: string, secret: string, key: Doc): Promise<boolean> {
    const digest = this.digest.digest(username, secret);
    const cached = this.verified.get(digest);
    if (cached && cached.keyPos === key._pos && Date.now() - cached.at < CACHE_TTL_MS) return true;
    this.verified.delete(digest);
    if (!(await verifyScrypt(secret, String(key.secretHash)))) return false;
    if (this.verified.size >= CACHE_MAX) this.verified.clear();
    this.verified.set(digest, { keyPos: key._pos, at: Date.now() });
    return true;
  }
}

async function verifyScrypt(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected);
}
