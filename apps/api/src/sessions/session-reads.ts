/**
 * The session reads beyond the kit's Get: List and Describe over the session read model (incognito
 * sessions hidden unless the filter asks about them), and Read of the message log.
 */
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { MAX_READ_MESSAGES, type ReadResponse, sessionsApi, type SessionListRequest } from '@svc/contracts/sessions/sessions.contract';
import { DomainError, invalid } from '@svc/domain/shared/domain-error';
import { SESSION_MESSAGES, SESSIONS } from '@svc/application/areas/sessions/sessions.projection';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import { docId } from '@svc/infrastructure/projection/projection';
import { compileFilter } from '@svc/infrastructure/query';
import type { Doc, Filter, ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import type { ListSpec } from '../cqrs/queries';
import { toResponse } from '../resource-kit/presentation';

export const SESSION_LIST: ListSpec = {
  collection: SESSIONS,
  filters: sessionsApi.filters,
  orderBy: sessionsApi.orderBy,
  defaultOrder: sessionsApi.defaultOrder,
  softDelete: true,
  nameSortable: sessionsApi.nameSortable,
};

/** A session description (spec part 2, "Session description") from the session document's runtime state. */
export function describe(doc: Doc): Doc {
  return {
    session: toResponse(doc),
    status: doc._status ?? 'STATUS_WAITING',
    sessionLength: doc._length ?? 0,
    ...(doc._lastMessage === undefined ? {} : { lastMessage: doc._lastMessage }),
    ...(doc._conclusion === undefined ? {} : { conclusion: doc._conclusion }),
  };
}

function mentions(query: unknown, field: string): boolean {
  if (Array.isArray(query)) return query.some((q) => mentions(q, field));
  if (typeof query !== 'object' || query === null) return false;
  return Object.entries(query).some(([key, value]) => key === field || mentions(value, field));
}

/** Incognito sessions stay out of listings unless the filter names `incognito` (e.g. `incognito = true`). */
export function incognitoScope(request: SessionListRequest): Filter {
  return mentions(compileFilter(request.filter ?? '', sessionsApi.filters), 'incognito') ? {} : { incognito: { $ne: true } };
}

export class ReadSessionQuery extends Query<ReadResponse> {
  constructor(
    readonly org: string,
    readonly session: string,
    readonly offset: number,
  ) {
    super();
  }
}

/** Read: an indexed range of the message log from `offset`, at most MAX_READ_MESSAGES. */
@QueryHandler(ReadSessionQuery)
export class ReadSessionHandler implements IQueryHandler<ReadSessionQuery> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ org, session, offset }: ReadSessionQuery): Promise<ReadResponse> {
    const doc = await this.reads.collection(SESSIONS).findOne({ _id: docId(org, session) });
    if (!doc) throw new DomainError('NOT_FOUND', `session '${session}' not found`);
    const length = (doc._length as number | undefined) ?? 0;
    if (offset < 0) throw invalid(`session_offset must be 0 or more, got ${offset}`);
    if (offset > length) throw new DomainError('OUT_OF_RANGE', `session_offset ${offset} is past the end of the session (session_length ${length})`);
    const docs =
      offset === length
        ? []
        : await this.reads
            .collection(SESSION_MESSAGES)
            .find({ _org: org, session, offset: { $gte: offset, $lt: offset + MAX_READ_MESSAGES } }, { sort: { offset: 1 }, limit: MAX_READ_MESSAGES });
    return { session, sessionOffset: offset, sessionLength: length, messages: docs.map((m) => m.message), status: (doc._status as string | undefined) ?? 'STATUS_WAITING' };
  }
}
