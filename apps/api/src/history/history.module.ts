import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { notFound } from '@svc/domain/shared/domain-error';
import { EVENT_STORE, type EventStore } from '@svc/infrastructure/event-store/event-store.port';
import { readAsOf, readHistory } from '@svc/infrastructure/history/resource-history';
import { historyTarget, type HistoryTarget } from '@svc/infrastructure/history/targets';
import { MethodRegistry, type MethodDefinition } from '../http/method-registry';
import { HISTORY_SERVICE } from './extension-routes';
import { GetResourceAsOfRequest, ListResourceHistoryRequest } from './history.requests';

/**
 * A resource's history and its state at a past version or time, read from its stream. Reads need
 * only membership, like every Get; the stream is the caller's organization's, so another
 * organization's resource has no events here and answers NOT_FOUND.
 */
@Injectable()
class HistoryMethods implements OnModuleInit {
  constructor(
    private readonly registry: MethodRegistry,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  onModuleInit(): void {
    const history: MethodDefinition<ListResourceHistoryRequest> = {
      service: HISTORY_SERVICE,
      method: 'ListResourceHistory',
      request: ListResourceHistoryRequest,
      handle: async ({ principal, request }) => {
        const page = await readHistory(this.events, targetOf(principal.org, request.name), request);
        return { events: page.entries, nextPageToken: page.nextPageToken };
      },
    };
    const asOf: MethodDefinition<GetResourceAsOfRequest> = {
      service: HISTORY_SERVICE,
      method: 'GetResourceAsOf',
      request: GetResourceAsOfRequest,
      handle: async ({ principal, request }) => readAsOf(this.events, targetOf(principal.org, request.name), request),
    };
    this.registry.register(history as MethodDefinition<object>, asOf as MethodDefinition<object>);
  }
}

export function targetOf(org: string, name: string): HistoryTarget {
  const target = historyTarget(org, name);
  if (!target) throw notFound(`'${name.slice(0, 256)}' is not a resource with a history`);
  return target;
}

@Module({ providers: [HistoryMethods] })
export class HistoryModule {}
