import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { DomainError } from '@svc/domain/shared/domain-error';
import type { NotificationSettings } from '@svc/infrastructure/notifications/settings';
import type { EventStream } from '../http/event-stream';

export const NOTIFICATION_SETTINGS = Symbol('NOTIFICATION_SETTINGS');

/**
 * The open notification streams of this api process: admission under the documented limits, one
 * heartbeat timer for all of them (running only while any is open), and their end at shutdown so
 * the drain is not held by streams that never finish.
 */
@Injectable()
export class SubscriberHub implements OnModuleDestroy {
  private readonly streams = new Set<EventStream>();
  private readonly perOrg = new Map<string, number>();
  private heartbeat: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(@Inject(NOTIFICATION_SETTINGS) private readonly settings: NotificationSettings) {}

  get size(): number {
    return this.streams.size;
  }

  /** Holds a place for `stream` until it closes; RESOURCE_EXHAUSTED past a limit, UNAVAILABLE while stopping. */
  admit(org: string, stream: EventStream): void {
    if (this.stopping) throw new DomainError('UNAVAILABLE', 'the server is shutting down; reconnect to another instance');
    const held = this.perOrg.get(org) ?? 0;
    if (held >= this.settings.maxSubscribersPerOrg) {
      throw new DomainError('RESOURCE_EXHAUSTED', `at most ${this.settings.maxSubscribersPerOrg} notification streams per organization may be open on one api instance`);
    }
    if (this.streams.size >= this.settings.maxSubscribers) {
      throw new DomainError('RESOURCE_EXHAUSTED', `at most ${this.settings.maxSubscribers} notification streams may be open on one api instance`);
    }
    this.streams.add(stream);
    this.perOrg.set(org, held + 1);
    this.heartbeat ??= setInterval(() => this.beat(), this.settings.heartbeatMs).unref();
    stream.onClose(() => {
      if (!this.streams.delete(stream)) return;
      const left = (this.perOrg.get(org) ?? 1) - 1;
      if (left === 0) this.perOrg.delete(org);
      else this.perOrg.set(org, left);
      if (this.streams.size === 0) this.stopHeartbeat();
    });
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

  private beat(): void {
    // A stream over its buffer bound is destroyed by the write itself (a subscriber that cannot keep up).
    for (const stream of [...this.streams]) stream.comment('heartbeat');
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
