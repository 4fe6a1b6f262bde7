/**
 * The kit's methods end to end inside one process: real SQLite event and read stores, the kit's
 * projection applied after every command (standing in for the projector), and calls through the
 * MethodRegistry as the HTTP routes make them. Covers kit features no single area proves alone.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IsOptional, IsString } from 'class-validator';
import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import { PERMISSIONS } from '@svc/contracts/roles/permissions';
import type { ResourceApi } from '@svc/contracts/shared/resource-api';
import { DomainError } from '@svc/domain/shared/domain-error';
import type { ResourceSpec } from '@svc/domain/shared/resource';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import { SqliteEventStore } from '@svc/infrastructure/event-store';
import type { Position } from '@svc/infrastructure/event-store/event-store.port';
import { docId, type Projection } from '@svc/infrastructure/projection/projection';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';
import { toProjected } from '@svc/infrastructure/projection/apply-page';
import { SqliteReadStore } from '@svc/infrastructure/read-store';
import type { Principal } from '../auth/principal';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { GetDocumentHandler, GetDocumentQuery, ListDocumentsHandler, ListDocumentsQuery } from '../cqrs/queries';
import { MethodRegistry } from '../http/method-registry';
import { ResourceKit } from './resource-kit';

class ShelfInput {
  @IsOptional() @IsString() displayName?: string;
  @IsOptional() @IsString() description?: string;
}
class BookInput {
  @IsOptional() @IsString() title?: string;
}
class LampInput {
  @IsOptional() @IsString() color?: string;
}

const ID = /^[a-z0-9-]+$/;
const shelfSpec: ResourceSpec = {
  kind: 'Shelf',
  collection: 'shelves',
  idRequired: false,
  idPattern: ID,
  idRule: 'shelf_id must be lowercase',
  settable: ['displayName', 'description'],
  undeletable: true,
};
const bookSpec: ResourceSpec = {
  kind: 'Book',
  collection: 'books',
  parent: shelfSpec,
  store: 'shelfBooks',
  idRequired: true,
  idPattern: ID,
  idRule: 'book_id must be lowercase',
  settable: ['title'],
  undeletable: false,
};
const lampSpec: ResourceSpec = {
  kind: 'Lamp',
  collection: 'lamps',
  idRequired: true,
  idPattern: ID,
  idRule: 'lamp_id must be lowercase',
  settable: ['color'],
  undeletable: false,
  implicit: true,
};

const SHELVES = 'test.shelves.v1.ShelfService';
const common = { filters: {}, orderBy: { create_time: 'createTime' }, defaultOrder: 'create_time', permission: 'KNOWLEDGE_WRITE' as const };
const shelvesApi: ResourceApi = {
  ...common,
  service: SHELVES,
  singular: 'shelf',
  plural: 'shelves',
  idField: 'shelfId',
  input: ShelfInput,
  methods: { get: 'GetShelf', create: 'CreateShelf', update: 'UpdateShelf', delete: 'DeleteShelf', undelete: 'UndeleteShelf', list: 'ListShelves' },
  optionalOnCreate: true,
  defaultMask: ['displayName'],
  listFields: ['name', 'displayName'],
  etag: true,
  deprecated: { since: '2024-01-01T00:00:00Z', successor: 'test.shelves.v2.ShelfService' },
};
const booksApi: ResourceApi = {
  ...common,
  service: 'test.books.v1.BookService',
  singular: 'book',
  plural: 'books',
  idField: 'bookId',
  input: BookInput,
  methods: { get: 'GetBook', create: 'CreateBook', list: 'ListBooks' },
};
const lampsApi: ResourceApi = {
  ...common,
  service: 'test.lamps.v1.LampService',
  singular: 'lamp',
  plural: 'lamps',
  idField: 'lampId',
  input: LampInput,
  methods: { get: 'GetLamp', update: 'UpdateLamp' },
};

const principal = (org: string): Principal => ({
  org,
  actor: 'users/alice',
  subject: 'users/alice',
  session: 's',
  authenticator: 'basic',
  provider: 'test',
  externalIdentity: 'alice',
  permissions: [...PERMISSIONS],
});
const ACME = principal('acme');
const GLOBEX = principal('globex');

describe('resource kit methods (SQLite stores, projection applied after each command)', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let registry: MethodRegistry;
  let projected: Position | undefined;
  const projections: Projection[] = [
    resourceProjection(shelfSpec, shelvesApi),
    resourceProjection(bookSpec, booksApi),
    resourceProjection(lampSpec, lampsApi),
  ];

  /** What the projector would do: every new event through every projection, committed. */
  const project = async () => {
    for (const record of await events.readAll(projected ? { after: projected } : {})) {
      const e = toProjected(record);
      for (const projection of projections) {
        await reads.commit({ checkpoint: projection.name, position: record.position, ops: projection.handle(e) });
      }
      projected = record.position;
    }
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-kit-'));
    events = new SqliteEventStore({ file: join(dir, 'events.db') });
    reads = new SqliteReadStore({ file: join(dir, 'read.db') });
    projected = undefined;
    const service = new CommandService(events);
    const commands = {
      execute: async (command: DecideAndAppend<unknown, unknown, never>) => {
        const result = await service.handle(command.stream);
        await project();
        return result;
      },
    } as unknown as CommandBus;
    const queries = {
      execute: (query: unknown) =>
        query instanceof GetDocumentQuery ? new GetDocumentHandler(reads).execute(query) : new ListDocumentsHandler(reads).execute(query as ListDocumentsQuery),
    } as unknown as QueryBus;
    registry = new MethodRegistry();
    const kit = new ResourceKit(commands, queries, registry, reads);
    kit.register(shelfSpec, shelvesApi);
    kit.register(bookSpec, booksApi);
    kit.register(lampSpec, lampsApi);
  });

  afterEach(async () => {
    await events.close();
    await reads.close();
    rmSync(dir, { recursive: true, force: true });
  });

  type Body = Record<string, Record<string, unknown> & { name: string; etag?: string }>;
  const call = (service: string, method: string, body: unknown, who = ACME) => registry.invoke(service, method, who, body) as Promise<Body>;
  const shelves = (method: string, body: unknown, who = ACME) => call(SHELVES, method, body, who);
  const books = (method: string, body: unknown, who = ACME) => call(booksApi.service, method, body, who);
  const failure = async (run: Promise<unknown>) => {
    try {
      await run;
    } catch (error) {
      if (error instanceof DomainError) return { code: error.code, message: error.message };
      throw error;
    }
    throw new Error('expected a DomainError');
  };

  it('optionalOnCreate: a create without the resource object creates an empty one; a non-object is refused', async () => {
    const { shelf } = await shelves('CreateShelf', { shelf_id: 'empty' });
    expect(shelf).toMatchObject({ name: 'shelves/empty' });
    expect(await failure(shelves('CreateShelf', { shelf_id: 'bad', shelf: 'x' }))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/shelf/) });
  });

  it('a generated ID comes from request_id, so a retried create names the same resource and appends once', async () => {
    const first = await shelves('CreateShelf', { shelf: { display_name: 'A' }, request_id: 'r-1' });
    const again = await shelves('CreateShelf', { shelf: { display_name: 'A' }, request_id: 'r-1' });
    expect(again.shelf).toEqual(first.shelf);
    expect(await events.readStream(`shelf-acme:${first.shelf.name}`)).toHaveLength(1);
  });

  it('etag: every answer carries the content hash; a write changes it; a list item carries the whole resource etag', async () => {
    const created = (await shelves('CreateShelf', { shelf_id: 's1', shelf: { display_name: 'One', description: 'd' } })).shelf;
    const got = (await shelves('GetShelf', { name: 'shelves/s1' })).shelf;
    expect(created.etag).toEqual(expect.any(String));
    expect(got).toEqual(created);
    const renamed = (await shelves('UpdateShelf', { shelf: { name: 'shelves/s1', display_name: 'Uno' } })).shelf;
    expect(renamed.etag).not.toBe(created.etag);
    // listFields: the list form is a subset, but its etag is the one Get answers.
    const listed = (await shelves('ListShelves', {})) as unknown as { shelves: Array<Record<string, unknown>> };
    expect(listed.shelves).toEqual([{ name: 'shelves/s1', displayName: 'Uno', etag: renamed.etag }]);
  });

  it('defaultMask: without update_mask only the default paths change; an explicit mask still reaches the others', async () => {
    await shelves('CreateShelf', { shelf_id: 's1', shelf: { display_name: 'One', description: 'old' } });
    const masked = (await shelves('UpdateShelf', { shelf: { name: 'shelves/s1', display_name: 'Two', description: 'new' } })).shelf;
    expect(masked).toMatchObject({ displayName: 'Two', description: 'old' });
    const explicit = (await shelves('UpdateShelf', { shelf: { name: 'shelves/s1', description: 'new' }, update_mask: 'description' })).shelf;
    expect(explicit).toMatchObject({ displayName: 'Two', description: 'new' });
    expect(await failure(shelves('UpdateShelf', { shelf: { name: 'shelves/s1' }, update_mask: 7 }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('deprecated: every method of the service carries the Deprecation and Link headers', () => {
    expect(registry.headersOf(SHELVES, 'GetShelf')).toEqual({
      Deprecation: `@${Date.parse('2024-01-01T00:00:00Z') / 1000}`,
      Link: '</test.shelves.v2.ShelfService/GetShelf>; rel="successor-version"',
    });
    expect(registry.headersOf(booksApi.service, 'GetBook')).toEqual({});
  });

  describe('nested resources', () => {
    beforeEach(async () => {
      await shelves('CreateShelf', { shelf_id: 's1' });
      await shelves('CreateShelf', { shelf_id: 's2' });
    });

    it('creates a child under a live parent of the caller, and refuses a missing, deleted, foreign or malformed one', async () => {
      const { book } = await books('CreateBook', { parent: 'shelves/s1', book_id: 'b1', book: { title: 'T' } });
      expect(book).toMatchObject({ name: 'shelves/s1/books/b1', title: 'T' });
      expect((await books('GetBook', { name: 'shelves/s1/books/b1' })).book).toEqual(book);
      expect(await failure(books('CreateBook', { parent: 'shelves/none', book_id: 'b1', book: {} }))).toMatchObject({ code: 'NOT_FOUND' });
      expect(await failure(books('CreateBook', { parent: 'shelves/s1', book_id: 'b2', book: {} }, GLOBEX))).toMatchObject({ code: 'NOT_FOUND' });
      expect(await failure(books('CreateBook', { parent: 'books/s1', book_id: 'b2', book: {} }))).toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/parent must look like 'shelves\/\{id\}'/),
      });
      expect(await failure(books('CreateBook', { book_id: 'b2', book: {} }))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/parent/) });
      await shelves('DeleteShelf', { name: 'shelves/s2' });
      expect(await failure(books('CreateBook', { parent: 'shelves/s2', book_id: 'b1', book: {} }))).toMatchObject({ code: 'NOT_FOUND' });
    });

    it('lists one parent’s children (a deleted parent still lists); a Get name must be nested', async () => {
      await books('CreateBook', { parent: 'shelves/s1', book_id: 'b1', book: {} });
      await books('CreateBook', { parent: 'shelves/s2', book_id: 'b1', book: {} });
      await books('CreateBook', { parent: 'shelves/s2', book_id: 'b2', book: {} });
      const names = async (parent: string) =>
        ((await books('ListBooks', { parent })) as unknown as { books: Array<{ name: string }> }).books.map((b) => b.name);
      expect(await names('shelves/s1')).toEqual(['shelves/s1/books/b1']);
      expect(await names('shelves/s2')).toEqual(['shelves/s2/books/b1', 'shelves/s2/books/b2']);
      await shelves('DeleteShelf', { name: 'shelves/s2' });
      expect(await names('shelves/s2')).toEqual(['shelves/s2/books/b1', 'shelves/s2/books/b2']);
      expect(await failure(books('ListBooks', { parent: 'shelves/none' }))).toMatchObject({ code: 'NOT_FOUND' });
      expect(await failure(books('ListBooks', { parent: 'shelves/s1' }, GLOBEX))).toMatchObject({ code: 'NOT_FOUND' });
      expect(await failure(books('GetBook', { name: 'books/b1' }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
      // A page token is bound to its parent.
      const page = (await books('ListBooks', { parent: 'shelves/s2', page_size: 1 })) as unknown as { nextPageToken: string };
      expect(await failure(books('ListBooks', { parent: 'shelves/s1', page_token: page.nextPageToken }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    });
  });

  describe('implicit resources', () => {
    /** A lamp another projection brought into being: a read-model document, no stream yet. */
    const appear = async (org: string, color: string) => {
      const name = 'lamps/l1';
      const doc = { name, color, createTime: '2024-01-01T00:00:00.000Z', updateTime: '2024-01-01T00:00:00.000Z' };
      const position = { commit: 0n, prepare: 0n };
      await reads.commit({ checkpoint: 'lamps-seed', position, ops: [{ op: 'update', collection: 'lamps', id: docId(org, name), pos: 0, update: { $set: { ...doc, _org: org } }, upsert: true }] });
      return doc;
    };

    it('an update that changes nothing answers the read-model document and starts no stream', async () => {
      const doc = await appear('acme', 'red');
      const { lamp } = await call(lampsApi.service, 'UpdateLamp', { lamp: { name: 'lamps/l1', color: 'red' } });
      expect(lamp).toEqual(doc);
      expect(await events.readStream('lamp-acme:lamps/l1')).toHaveLength(0);
    });

    it('the first change starts the stream from the document; another organization’s lamp is not found', async () => {
      await appear('acme', 'red');
      const { lamp } = await call(lampsApi.service, 'UpdateLamp', { lamp: { name: 'lamps/l1', color: 'blue' } });
      expect(lamp).toMatchObject({ name: 'lamps/l1', color: 'blue', createTime: '2024-01-01T00:00:00.000Z' });
      expect((await events.readStream('lamp-acme:lamps/l1')).map((e) => e.type)).toEqual(['LampCreated', 'LampUpdated']);
      expect((await call(lampsApi.service, 'GetLamp', { name: 'lamps/l1' })).lamp).toEqual(lamp);
      expect(await failure(call(lampsApi.service, 'UpdateLamp', { lamp: { name: 'lamps/l1', color: 'red' } }, GLOBEX))).toMatchObject({ code: 'NOT_FOUND' });
    });
  });
});
