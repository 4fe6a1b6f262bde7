import { createCipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey, KEY_PURPOSES } from '../config/secrets';
import type { Position } from '../event-store/event-store.port';

/** 16 bytes of synthetic IV then 16 of ciphertext, base64url without padding. */
const ID = /^[A-Za-z0-9_-]{43}$/;

/** A Last-Event-ID this service did not issue to the organization (garbled, tampered, another org's, another key's). */
export class ForeignEventIdError extends Error {
  constructor() {
    super('not an event id this service issued to the organization');
    this.name = 'ForeignEventIdError';
  }
}

/**
 * SSE event ids that hide the log position they stand for. A position is global, so showing it
 * would let a tenant count every other tenant's events between two of its own. An id is the
 * position (commit and prepare, 16 bytes) under deterministic authenticated encryption bound to
 * the organization: SIV (RFC 5297's construction with HMAC-SHA256 as the PRF, AES-256-CTR with the
 * tag as counter block), keys derived from the master key (KEY_PURPOSES), so every api and
 * projector process on the same key reads the ids of the others.
 *
 * Deterministic on purpose: every stream of an organization shows the same id for the same event
 * (clients and tests compare ids across reconnects), and a fan-out to N streams encrypts once
 * (the last id is remembered). Ids of different positions are unrelated strings of one length.
 */
export class EventIdCodec {
  private readonly cipherKey: Buffer;
  private readonly macKey: Buffer;
  private last: { org: string; commit: bigint; prepare: bigint; id: string } | undefined;

  constructor(master: Buffer) {
    this.cipherKey = deriveKey(master, KEY_PURPOSES.eventIdCipher);
    this.macKey = deriveKey(master, KEY_PURPOSES.eventIdMac);
  }

  encode(org: string, position: Position): string {
    const last = this.last;
    if (last && last.org === org && last.commit === position.commit && last.prepare === position.prepare) return last.id;
    const plain = Buffer.alloc(16);
    plain.writeBigInt64BE(position.commit, 0);
    plain.writeBigInt64BE(position.prepare, 8);
    const tag = this.tag(org, plain);
    const id = Buffer.concat([tag, this.ctr(tag, plain)]).toString('base64url');
    this.last = { org, commit: position.commit, prepare: position.prepare, id };
    return id;
  }

  /** The position `id` stands for; ForeignEventIdError unless this codec issued it to `org`. */
  decode(org: string, id: string): Position {
    if (!ID.test(id)) throw new ForeignEventIdError();
    const bytes = Buffer.from(id, 'base64url');
    const tag = bytes.subarray(0, 16);
    const plain = this.ctr(tag, bytes.subarray(16));
    if (!timingSafeEqual(tag, this.tag(org, plain))) throw new ForeignEventIdError();
    return { commit: plain.readBigInt64BE(0), prepare: plain.readBigInt64BE(8) };
  }

  private tag(org: string, plain: Buffer): Buffer {
    // The organization is length-prefixed, so no (org, position) pair reads as another.
    const orgBytes = Buffer.from(org, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(orgBytes.length);
    return createHmac('sha256', this.macKey).update(length).update(orgBytes).update(plain).digest().subarray(0, 16);
  }

  private ctr(iv: Buffer, input: Buffer): Buffer {
    const cipher = createCipheriv('aes-256-ctr', this.cipherKey, iv);
    return Buffer.concat([cipher.update(input), cipher.final()]);
  }
}
