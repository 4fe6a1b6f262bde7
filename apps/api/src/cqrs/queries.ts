import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { FilterSchema } from '@svc/contracts/shared/resource-api';
import type { ListRequest } from '@svc/contracts/shared/requests';
import { DomainError } from '@svc/domain/shared/domain-error';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import type { Doc, Filter, ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import {
  compileFilter,
  decodePageToken,
  encodePageToken,
  keysetFilter,
  pageSize,
  parseOrderBy,
  queryFingerprint,
  sortKeyValues,
  toMongoSort,
} from '@svc/infrastructure/query';
import { docId } from '@svc/infrastructure/projection/projection';
import { findInMemory } from '@svc/infrastructure/read-store/in-memory';
import { toResponse } from '../resource-kit/presentation';

export class GetDocumentQuery extends Query<Doc> {
  constructor(
    readonly collection: string,
    readonly org: string,
    readonly name: string,
    /** Used in the NOT_FOUND message: `note 'notes/x' not found`. */
    readonly noun: string,
  ) {
    super();
  }
}

@QueryHandler(GetDocumentQuery)
export class GetDocumentHandler implements IQueryHandler<GetDocumentQuery> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute(q: GetDocumentQuery): Promise<Doc> {
    // Another organization's resource has a different _id: it is simply not found.
    const doc = await this.reads.collection(q.collection).findOne({ _id: docId(q.org, q.name) });
    if (!doc) throw new DomainError('NOT_FOUND', `${q.noun} '${q.name}' not found`);
    return toResponse(doc);
  }
}

export interface ListSpec {
  collection: string;
  filters: FilterSchema;
  orderBy: Record<string, string>;
  defaultOrder: string;
  /** Resources without soft delete ignore show_deleted. */
  softDelete: boolean;
  maxPageSize?: number;
  /** false: `name` is only the tiebreaker, not a field the client may order by. */
  nameSortable?: boolean;
  /** A fixed list every organization sees (connection types), listed in memory instead of from `collection`. */
  constant?: readonly Doc[];
  /** The answer's form of a stored document, internal fields included (DescribeSessions); default toResponse. */
  present?(doc: Doc): Doc;
}

export interface Page {
  items: Doc[];
  nextPageToken: string;
}

export class ListDocumentsQuery extends Query<Page> {
  constructor(
    readonly spec: ListSpec,
    readonly org: string,
    readonly request: ListRequest,
    /** Extra conditions the method itself adds (a parent, a fixed scope). */
    readonly scope: Filter = {},
  ) {
    super();
  }
}

/**
 * AIP-132 List over a read model: filter (AIP-160) compiled to a MongoDB filter, order_by with
 * `name` as the tiebreaker, keyset page tokens bound to the query they were issued for.
 */
@QueryHandler(ListDocumentsQuery)
export class ListDocumentsHandler implements IQueryHandler<ListDocumentsQuery> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ spec, org, request, scope }: ListDocumentsQuery): Promise<Page> {
    const size = pageSize(request.pageSize, { default: 50, max: spec.maxPageSize ?? 1000 });
    const filter = compileFilter(request.filter ?? '', spec.filters);
    const keys = parseOrderBy(request.orderBy, spec.orderBy, spec.defaultOrder, { nameSortable: spec.nameSortable });
    const showDeleted = spec.softDelete && request.showDeleted === true;
    const fingerprint = queryFingerprint({ filter: request.filter ?? '', orderBy: request.orderBy ?? '', showDeleted, extra: JSON.stringify(scope) });
    const conditions: Filter[] = [spec.constant ? {} : { _org: org }, scope, filter];
    if (spec.softDelete && !showDeleted) conditions.push({ deleteTime: { $exists: false } });
    const token = decodePageToken(request.pageToken, fingerprint);
    if (token) conditions.push(keysetFilter(keys, token.after));
    const where = { $and: conditions.filter((c) => Object.keys(c).length > 0) };
    const options = { sort: toMongoSort(keys), limit: size + 1 };
    const docs = spec.constant ? findInMemory(spec.constant, where, options) : await this.reads.collection(spec.collection).find(where, options);
    const items = docs.slice(0, size);
    const last = items[items.length - 1];
    const nextPageToken =
      docs.length > size && last ? encodePageToken({ q: fingerprint, after: sortKeyValues(last, keys) }) : '';
    return { items: items.map(spec.present ?? toResponse), nextPageToken };
  }
}
