import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { INGEST_ROWS, IngestRowsRequest, IngestRowsResponse, ROWS_PERMISSION, ROWS_PRESERVE_KEYS, ROWS_SERVICE } from '@svc/contracts/rows/rows.contract';
import { CommandBus } from '@nestjs/cqrs';
import { ingestRows } from '@svc/application/rows/ingest-rows';
import { actorOf } from '../auth/principal';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod } from '../resource-kit/method-builders';

/**
 * svc.rows.v1.RowsService/IngestRows (an extension): rows for row triggers. No read model serves
 * them, so the answer comes as soon as they are appended; the row trigger reactor takes it from there.
 */
@Injectable()
class RowsMethods implements OnModuleInit {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly bus: CommandBus,
  ) {}

  onModuleInit(): void {
    const service = { service: ROWS_SERVICE, permission: ROWS_PERMISSION, preserveKeysUnder: ROWS_PRESERVE_KEYS };
    this.registry.register(
      defineMethod(service, INGEST_ROWS, { request: IngestRowsRequest, response: IngestRowsResponse }, 'write', async ({ principal, request }) => {
        const { ingestion, table, rowCount } = await ingestRows(this.bus, actorOf(principal), request);
        return { ingestion, table, rowCount };
      }),
    );
  }
}

@Module({ providers: [RowsMethods] })
export class RowsModule {}
