import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { DomainError } from '@svc/domain/shared/domain-error';
import { apiKeyDecider } from '@svc/domain/organizations/organization.decider';
import { effectivePermissions } from '@svc/domain/roles/access.decider';
import { CredentialDigest, hashSecretAsync, needsRehash, unmatchableHash, verifySecretAsync } from '@svc/infrastructure/auth/secret-hash';
import { authVerifications } from '@svc/infrastructure/observability/metrics';
import { ACCESS_STAMP, docId } from '@svc/infrastructure/projection/projection';
import type { Doc, ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import { TurnReads } from '@svc/infrastructure/read-store/turn-reads';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { AuthLimits } from './auth-limits';
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
 * the key document and the organization's access stamp (one read of both, shared by the requests of
 * one event-loop turn: TurnReads), made after the request arrived: when either moved, the
 * pair is verified or the permissions recomputed, so a rotated key, a changed membership or a
 * deleted role takes effect on the very next request.
 *
 * A pair outside that cache is checked under AuthLimits: failed attempts are limited per key username
 * and per client address, a pair that failed recently is refused without hashing, and every slow hash
 * waits at a gate of a few at once. An unknown username takes the same steps, against a hash no secret
 * matches, so neither the answer nor the time taken tells which usernames exist.
 */
@Injectable()
export class CredentialsService {
  private readonly digest = new CredentialDigest();
  private readonly verified = new Map<string, Verified>();
  /**
   * Verifications running now, by pair digest and stored hash: concurrent requests of one pair share
   * one slow hash and one attempt (a burst of 32 clients on a cold cache would otherwise run 32
   * scrypts at once, and spend 32 attempts).
   */
  private readonly verifying = new Map<string, Promise<boolean>>();
  /** Keys whose hash this process is upgrading: one upgrade per key, however many requests verify it. */
  private readonly upgrading = new Set<string>();
  private readonly logger = new Logger(CredentialsService.name);
  /** What an unknown username is checked against: the cost of a wrong secret, and never a match. */
  private readonly unmatchable = unmatchableHash();
  /** The per-request read of a key and its stamp, one for the requests of one event-loop turn. */
  private readonly turnReads: TurnReads;

  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly commandBus: CommandBus,
    private readonly limits: AuthLimits,
  ) {
    this.turnReads = new TurnReads(reads);
  }

  /** `address`: the client's, for the limit of failed attempts per address. */
  async authenticate(username: string, secret: string, address: string): Promise<Principal | null> {
    const digest = this.digest.digest(username, secret);
    const cached = this.verified.get(digest);
    const keyRef = { collection: 'apikeys', id: `apikey|${username}` };
    let key: Doc | null;
    let accessPos: unknown;
    if (cached) {
      // The usual request: a pair verified before. Its key and its organization's stamp in one read.
      const [found, stamp] = await this.turnReads.findByIds([keyRef, accessStamp(cached.principal.org)]);
      key = found;
      accessPos = stamp?._pos;
    } else {
      key = await this.reads.collection(keyRef.collection).findOne({ _id: keyRef.id });
    }
    if (!key || typeof key.secretHash !== 'string') {
      await this.check({ digest, username, secret, address }, this.unmatchable, key?._pos, false);
      return null;
    }
    const org = String(key._org);
    if (org !== cached?.principal.org) accessPos = await this.accessPosition(org);
    const stillVerified = cached !== undefined && cached.keyPos === key._pos && Date.now() - cached.at < CACHE_TTL_MS;
    if (stillVerified && cached.accessPos === accessPos) return cached.principal;
    if (!stillVerified) {
      this.verified.delete(digest);
      // A pair in the cache was right when last checked (only its owner can present it): it does not pay the limits.
      if (!(await this.check({ digest, username, secret, address }, String(key.secretHash), key._pos, cached !== undefined))) return null;
      if (needsRehash(String(key.secretHash))) this.upgrade(org, username, String(key.principal), secret, String(key.secretHash));
    }
    const principal = await this.resolve(org, String(key.principal));
    if (!principal) return null;
    if (this.verified.size >= CACHE_MAX) this.verified.clear();
    this.verified.set(digest, { principal, keyPos: key._pos, accessPos, at: stillVerified ? cached.at : Date.now() });
    return principal;
  }

  /**
   * Checks a pair against `hash` under the limits. A pair that failed against this key position
   * recently is refused from memory; a request of a pair being checked now shares that check; only a
   * request that starts a slow hash is admitted by the limits (unless `trusted`: AuthLimits.admit),
   * and the hash waits at the gate. Throws the limits' answers.
   */
  private check(pair: Pair, hash: string, keyPos: unknown, trusted: boolean): Promise<boolean> {
    if (this.limits.failedRecently(pair.digest, keyPos)) {
      authVerifications.inc({ outcome: 'refused_cached' });
      return Promise.resolve(false);
    }
    const key = `${pair.digest}|${hash}`;
    const running = this.verifying.get(key);
    if (running) return running;
    if (!trusted) {
      try {
        this.limits.admit(pair.username, pair.address);
      } catch (error) {
        authVerifications.inc({ outcome: 'limited' });
        return Promise.reject(error);
      }
    }
    const verification = this.limits.gate
      .run(() => verifySecretAsync(pair.secret, hash))
      .then(
        (verified) => {
          authVerifications.inc({ outcome: verified ? 'accepted' : 'refused' });
          if (!verified) this.limits.rememberFailure(pair.digest, keyPos);
          if (!trusted) this.limits.settle(pair.username, pair.address, !verified);
          return verified;
        },
        (error: unknown) => {
          // Nothing was checked (the gate was full): the attempt does not count as a failure.
          if (!trusted) this.limits.settle(pair.username, pair.address, false);
          if (error instanceof DomainError && error.code === 'UNAVAILABLE') authVerifications.inc({ outcome: 'busy' });
          throw error;
        },
      )
      .finally(() => this.verifying.delete(key));
    this.verifying.set(key, verification);
    return verification;
  }

  /**
   * Stores a hash of a just-verified secret at today's cost (secret-hash.ts) through the command path,
   * in the background: the request that verified it does not wait for the slower hash. The decider
   * appends nothing when the stored hash has moved on (rotated, or upgraded by another process).
   */
  private upgrade(org: string, keyId: string, principal: string, secret: string, replaces: string): void {
    if (this.upgrading.has(keyId)) return;
    this.upgrading.add(keyId);
    const actor = { org, actor: principal, subject: principal, permissions: [], now: new Date().toISOString() };
    void hashSecretAsync(secret)
      .then((secretHash) =>
        this.commandBus.execute(
          new DecideAndAppend(
            { decider: apiKeyDecider, streamId: `apikey-${org}:api-keys/${keyId}`, command: { type: 'RehashApiKey', actor, replaces, secretHash }, context: { actor } },
            'organizations',
          ),
        ),
      )
      .catch((error: unknown) => {
        // The old hash still verifies; the next verification tries again.
        this.upgrading.delete(keyId);
        this.logger.warn(`could not upgrade the hash of API key ${keyId}: ${error instanceof Error ? error.message : String(error)}`);
      });
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
    const { collection, id } = accessStamp(org);
    const stamp = await this.reads.collection(collection).findOne({ _id: id });
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

/** A presented pair: its keyed digest, and where it came from. */
interface Pair {
  digest: string;
  username: string;
  secret: string;
  address: string;
}

/** The document whose position moves with every change of the organization's roles or members. */
const accessStamp = (org: string) => ({ collection: 'members', id: docId(org, ACCESS_STAMP) });
