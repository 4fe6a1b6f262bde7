import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { notFound } from '@svc/domain/shared/domain-error';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import { EventIdCodec } from '@svc/infrastructure/notifications/event-ids';
import { readAsOf, readHistory } from '@svc/application/history/resource-history';
import { historyTarget, type HistoryTarget } from '@svc/application/history/targets';
import type { Settings } from '@svc/infrastructure/config/env';
import { READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { KeyedGate } from '@svc/infrastructure/requests/keyed-gate';
import { NotificationsModule } from '../notifications/notifications.module';
import { MethodRegistry, type MethodDefinition } from '../http/method-registry';
import { HISTORY_SERVICE } from './extension-routes';
import { GetResourceAsOfRequest, GetResourceAsOfResponse, ListResourceHistoryRequest, ListResourceHistoryResponse } from './history.requests';

/**
 * A resource's history and its state at a past version or time, read from its stream. Reads need
 * only membership, like every Get; the stream is the caller's organization's, so another
 * organization's resource has no events here and answers NOT_FOUND. A read folds its stream up to
 * what it answers, so it is admitted through a gate per organization (SVC_HISTORY_READS_PER_ORG,
 * SVC_HISTORY_READS): a burst of one organization waits its turn, or is told to retry.
 */
@Injectable()
class HistoryMethods implements OnModuleInit {
  private readonly gate: KeyedGate;

  constructor(
    private readonly registry: MethodRegistry,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SETTINGS) settings: Settings,
    private readonly ids: EventIdCodec,
  ) {
    const { perOrg, total } = settings.historyReads;
    this.gate = new KeyedGate({ perKey: perOrg, total, queuePerKey: 2 * perOrg, what: 'history and as-of reads' });
  }

  onModuleInit(): void {
    const history: MethodDefinition<ListResourceHistoryRequest, ListResourceHistoryResponse> = {
      service: HISTORY_SERVICE,
      method: 'ListResourceHistory',
      request: ListResourceHistoryRequest,
      response: ListResourceHistoryResponse,
      handle: async ({ principal, request }) => {
        const target = targetOf(principal.org, request.name, this.reads);
        // Positions are global: a tenant sees the opaque ids its watch streams show, never the log's count.
        const positionOf = (record: RecordedEvent) => this.ids.encode(principal.org, record.position);
        const page = await this.gate.run(principal.org, () => readHistory(this.events, target, request, positionOf));
        return { events: page.entries, nextPageToken: page.nextPageToken };
      },
    };
    const asOf: MethodDefinition<GetResourceAsOfRequest, GetResourceAsOfResponse> = {
      service: HISTORY_SERVICE,
      method: 'GetResourceAsOf',
      request: GetResourceAsOfRequest,
      response: GetResourceAsOfResponse,
      handle: async ({ principal, request }) => {
        const target = targetOf(principal.org, request.name, this.reads);
        return this.gate.run(principal.org, () => readAsOf(this.events, target, request));
      },
    };
    this.registry.register(history as MethodDefinition<object>, asOf as MethodDefinition<object>);
  }
}

export function targetOf(org: string, name: string, reads?: ReadStore): HistoryTarget {
  const target = historyTarget(org, name, reads);
  if (!target) throw notFound(`'${name.slice(0, 256)}' is not a resource with a history`);
  return target;
}

@Module({ imports: [NotificationsModule], providers: [HistoryMethods] })
export class HistoryModule {}
