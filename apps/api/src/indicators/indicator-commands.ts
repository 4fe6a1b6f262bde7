/**
 * The indicator write path: every indicator, relation and purge command goes down the command bus
 * (DecideAndAppend on the indicator's stream, waiting for the indicators projection). The facts a
 * decision needs from other resources (connections, the related resource) are read here first.
 */
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import { indicatorDecider, type IndicatorCommand, type IndicatorEvent, type IndicatorState } from '@svc/domain/indicators/indicator.decider';
import { indicatorSpec, RELATABLE, RELATABLE_RULE } from '@svc/domain/indicators/indicator.resource';
import type { Actor } from '@svc/domain/shared/decider';
import { invalid } from '@svc/domain/shared/domain-error';
import { resourceStreamId, storeOf, type References } from '@svc/domain/shared/resource';
import type { Handled } from '@svc/infrastructure/commands/command-service';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { ResourceReferences } from '../resource-kit/references';

const NAMESPACE = '0b7b3c52-5f7e-4a8e-9a57-6e0f4c1d2a91';

@Injectable()
export class IndicatorCommands {
  readonly references: ResourceReferences;

  constructor(
    private readonly bus: CommandBus,
    @Inject(READ_STORE) reads: ReadStore,
  ) {
    this.references = new ResourceReferences(reads);
  }

  /** The connections an indicator body names, read for the decider (missing ones as null). */
  async refs(org: string, resource: Record<string, unknown>): Promise<References> {
    return this.references.lookUp(indicatorSpec, org, resource);
  }

  /**
   * The connections an update's decision may need: those the request names and those the stored
   * indicator reads, since a mask of `query.engine_sql` alone plans the new SQL against the
   * connections it keeps.
   */
  async updateRefs(org: string, name: string, resource: Record<string, unknown>): Promise<References> {
    const stored = await this.references.read(storeOf(indicatorSpec), org, name);
    const given = await this.refs(org, resource);
    const kept = stored ? await this.refs(org, stored) : new Map();
    return new Map([...kept, ...given]);
  }

  /** A live agent, issue, investigation or monitoring plan of the caller's organization, else INVALID_ARGUMENT naming `field`. */
  async relatable(org: string, name: unknown, field: string): Promise<string> {
    const kind = typeof name === 'string' ? RELATABLE.find((k) => k.pattern.test(name)) : undefined;
    if (!kind) throw invalid(`${field} ${RELATABLE_RULE}, got '${String(name ?? '')}'`);
    const found = await this.references.read(kind.store, org, name as string);
    if (!found || found.deleteTime !== undefined) throw invalid(`${field} '${String(name)}' does not exist`);
    return name as string;
  }

  /** A new relation's ID: derived from request_id when there is one, so a retry names the same relation. */
  relationId(actor: Actor, requestId: string | undefined, indicator: string, resource: string): string {
    return requestId ? uuidv5(`${actor.org}|${indicator}|${resource}|${requestId}`, NAMESPACE) : randomUUID();
  }

  /** A new indicator's ID when the client gives none. */
  indicatorId(actor: Actor, requestId: string | undefined): string {
    return requestId ? `ind-${uuidv5(`${actor.org}|indicators|${requestId}`, NAMESPACE)}` : `ind-${randomUUID()}`;
  }

  send(name: string, requestId: string | undefined, command: IndicatorCommand, create = false): Promise<Handled<IndicatorState>> {
    return this.bus.execute(
      new DecideAndAppend<IndicatorState, IndicatorCommand, IndicatorEvent>(
        {
          decider: indicatorDecider,
          streamId: resourceStreamId(indicatorSpec, command.actor.org, name),
          command,
          context: { actor: command.actor, requestId },
          create,
        },
        storeOf(indicatorSpec),
      ),
    );
  }
}
