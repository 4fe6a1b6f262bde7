import { Inject, Injectable } from '@nestjs/common';
import { effectivePermissions } from '@svc/domain/roles/access.decider';
import { CredentialDigest, verifySecretAsync } from '@svc/infrastructure/auth/secret-hash';
import { ACCESS_STAMP, docId } from '@svc/infrastructure/projection/projection';
import type { Doc, ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import type { Principal } from './principal';

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;

interface Verified {
  principal: Principal;
  /** Position of the key document when verified: a rotated or reassigned key is verified afresh. */
  keyPos: unknown;
  /** Position of the organization's access stamp when the permissions were computed. */
  accessPos: unknown;
  at: number;
}

/**
 * Verifies API key pairs and resolves the caller's permissions. The slow hash runs once per pair
 * per minute at most: a verified pair is remembered under a keyed digest. Each request still reads
 * the key document and the organization's access stamp (two point reads): when either moved, the
 * pair is verified or the permissions recomputed, so a rotated key, a changed membership or a
 * deleted role takes effect on the very next request.
 */
@Injectable()
export class CredentialsService {
  private readonly digest = new CredentialDigest();
  private readonly verified = new Map<string, Verified>();

  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async authenticate(username: string, secret: string): Promise<Principal | null> {
    const key = await this.reads.collection('apikeys').findOne({ _id: `apikey|${username}` });
    if (!key || typeof key.secretHash !== 'string') return null;
    const org = String(key._org);
    const accessPos = await this.accessPosition(org);
    const digest = this.digest.digest(username, secret);
    const cached = this.verified.get(digest);
    const stillVerified = cached !== undefined && cached.keyPos === key._pos && Date.now() - cached.at < CACHE_TTL_MS;
    if (stillVerified && cached.accessPos === accessPos) return cached.principal;
    if (!stillVerified) {
      this.verified.delete(digest);
      if (!(await verifySecretAsync(secret, String(key.secretHash)))) return null;
    }
    const principal = await this.resolve(org, String(key.principal));
    if (!principal) return null;
    if (this.verified.size >= CACHE_MAX) this.verified.clear();
    this.verified.set(digest, { principal, keyPos: key._pos, accessPos, at: stillVerified ? cached.at : Date.now() });
    return principal;
  }

  private async resolve(org: string, name: string): Promise<Principal | null> {
    const member = await this.member(org, name);
    if (!member) return null;
    return {
      org,
      actor: name,
      subject: name,
      session: '',
      authenticator: 'basic',
      provider: '',
      externalIdentity: '',
      permissions: await this.permissionsOf(org, member),
    };
  }

  /** Position of the organization's access stamp: it moves with every change of roles or members. */
  async accessPosition(org: string): Promise<unknown> {
    const stamp = await this.reads.collection('members').findOne({ _id: docId(org, ACCESS_STAMP) });
    return stamp?._pos;
  }

  /** The member document of `name` in `org`, or null for a stranger. */
  member(org: string, name: string): Promise<Doc | null> {
    return this.reads.collection('members').findOne({ _id: docId(org, name) });
  }

  async permissionsOf(org: string, member: Doc): Promise<string[]> {
    const held = Array.isArray(member.roles) ? (member.roles as string[]) : [];
    if (held.length === 0) return [];
    const roles = await this.reads.collection('roles').find({ _org: org, name: { $in: held } });
    return effectivePermissions(
      held,
      roles.map((r) => ({ name: String(r.name), permissions: r.permissions as string[], deleteTime: r.deleteTime as string | undefined })),
    );
  }
}
