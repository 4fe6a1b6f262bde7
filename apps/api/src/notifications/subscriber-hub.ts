import type { OnModuleDestroy } from '@nestjs/common';
import { DomainError } from '@svc/domain/shared/domain-error';
import { sseRefused } from '@svc/infrastructure/observability/metrics';
import type { NotificationSettings } from '@svc/infrastructure/notifications/settings';
import type { Principal } from '../auth/principal';
import { EventStream, type StreamBudget } from '../http/event-stream';

export const NOTIFICATION_SETTINGS = Symbol('NOTIFICATION_SETTINGS');
/** The process's StreamBudget: one for every event stream, whatever its kind. */
export const STREAM_BUDGET = Symbol('STREAM_BUDGET');

type Limit = 'member' | 'organization' | 'process' | 'buffer_budget';

/**
 * The open streams of one kind (notification streams, watch streams) in this api process: admission
 * under the documented limits (per member, per organization, per process, and the process's buffer
 * budget shared by both kinds), one heartbeat timer for all of them (running only while any is
 * open), and their end at shutdown so the drain is not held by streams that never finish.
 */
export class SubscriberHub implements OnModuleDestroy {
  private readonly streams = new Set<EventStream>();
  private readonly perOrg = new Map<string, number>();
  /** Keyed by organization and actor: a member of two organizations has a count in each. */
  private readonly perMember = new Map<string, number>();
  private heartbeat: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(
    /** `notification` or `watch`: how refusals name the streams. */
    private readonly kind: string,
    private readonly settings: NotificationSettings,
    private readonly budget: StreamBudget,
    private readonly typeHost: string,
  ) {}

  get size(): number {
    return this.streams.size;
  }

  /**
   * A new stream for `principal`, holding its places until it closes; RESOURCE_EXHAUSTED past a
   * limit and UNAVAILABLE while stopping, before anything is opened (nothing to release).
   */
  open(principal: Principal): EventStream {
    if (this.stopping) throw new DomainError('UNAVAILABLE', 'the server is shutting down; reconnect to another instance');
    const { org } = principal;
    const member = `${org}\u0000${principal.actor}`;
    const s = this.settings;
    const byMember = this.perMember.get(member) ?? 0;
    const byOrg = this.perOrg.get(org) ?? 0;
    if (byMember >= s.maxSubscribersPerMember) this.refuse('member', s.maxSubscribersPerMember, `at most ${s.maxSubscribersPerMember} ${this.kind} streams per member may be open on one api instance; close one first`);
    if (byOrg >= s.maxSubscribersPerOrg) this.refuse('organization', s.maxSubscribersPerOrg, `at most ${s.maxSubscribersPerOrg} ${this.kind} streams per organization may be open on one api instance`);
    if (this.streams.size >= s.maxSubscribers) this.refuse('process', s.maxSubscribers, `at most ${s.maxSubscribers} ${this.kind} streams may be open on one api instance`);
    if (this.budget.exhausted) this.refuse('buffer_budget', this.budget.maxBytes, `this api instance's stream buffers are full (clients not reading); retry later or on another instance`);

    const stream = new EventStream({ maxBufferBytes: s.maxBufferBytes, budget: this.budget, typeHost: this.typeHost });
    this.streams.add(stream);
    this.perOrg.set(org, byOrg + 1);
    this.perMember.set(member, byMember + 1);
    this.heartbeat ??= setInterval(() => this.beat(), s.heartbeatMs).unref();
    stream.onClose(() => {
      if (!this.streams.delete(stream)) return;
      decrement(this.perOrg, org);
      decrement(this.perMember, member);
      if (this.streams.size === 0) this.stopHeartbeat();
    });
    return stream;
  }

  onModuleDestroy(): void {
    this.stopping = true;
    this.stopHeartbeat();
    // A client that has read everything gets a clean end; one that has not is cut, so it cannot hold the drain.
    for (const stream of [...this.streams]) {
      if (stream.buffered > 0) stream.destroy();
      else stream.end();
    }
  }

  private refuse(limit: Limit, max: number, message: string): never {
    sseRefused.inc({ limit });
    throw new DomainError('RESOURCE_EXHAUSTED', message, 'TOO_MANY_STREAMS', { limit, max: String(max) });
  }

  private beat(): void {
    // A stream that cannot take even a comment is ended by the write itself (a subscriber that cannot keep up).
    for (const stream of [...this.streams]) stream.comment('heartbeat');
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left === 0) counts.delete(key);
  else counts.set(key, left);
}
