import type { CommandBus } from '@nestjs/cqrs';
import type { Actor } from '@svc/domain/shared/decider';
import type { ResourceCommand, ResourceSpec } from '@svc/domain/shared/resource';
import { ClaimUniqueValues } from '@svc/application/commands/claim-unique-values';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { ResourceCommands } from './resource-methods';

const spec = (unique?: string[]): ResourceSpec =>
  ({ kind: 'Shelf', collection: 'shelves', idRequired: false, idPattern: /^[a-z]+$/, idRule: 'lowercase', settable: ['code'], undeletable: false, unique }) as ResourceSpec;
const actor: Actor = { org: 'acme', actor: 'users/alice', subject: 'users/alice', permissions: [], now: '2026-01-01T00:00:00.000Z' };

/** A bus that records what the kit sends and answers as the handlers would. */
function recordingBus() {
  const sent: Array<ClaimUniqueValues | DecideAndAppend<unknown, unknown, never>> = [];
  const bus = {
    execute: async (command: ClaimUniqueValues | DecideAndAppend<unknown, ResourceCommand, never>) => {
      sent.push(command as never);
      if (command instanceof ClaimUniqueValues) return { ...command.resource.command, claimed: { code: 'c-1' } };
      return { state: { resource: { name: 'shelves/a' }, deleted: false }, position: null, events: [], replayed: false };
    },
  } as unknown as CommandBus;
  return { bus, sent };
}

describe('ResourceCommands: every resource command through the bus, by the kit command table', () => {
  it('a create of a kind with unique fields claims through the bus, then starts its stream with the claims', async () => {
    const { bus, sent } = recordingBus();
    const create: ResourceCommand = { type: 'Create', actor, id: 'a', resource: { code: 'c-1' } };
    expect(await new ResourceCommands(bus).send(spec(['code']), 'r-1', 'shelves/a', create)).toEqual({ name: 'shelves/a' });
    expect(sent.map((c) => c.constructor)).toEqual([ClaimUniqueValues, DecideAndAppend]);
    const [claim, append] = sent as [ClaimUniqueValues, DecideAndAppend<unknown, ResourceCommand, never>];
    expect(claim.resource).toMatchObject({ streamId: 'shelf-acme:shelves/a', command: create, context: { requestId: 'r-1' } });
    expect(append.stream).toMatchObject({ streamId: 'shelf-acme:shelves/a', create: true, command: { ...create, claimed: { code: 'c-1' } } });
    expect(append.projection).toBe('shelves');
  });

  it('a kind without unique fields sends one DecideAndAppend; only a create starts its stream', async () => {
    const { bus, sent } = recordingBus();
    const commands = new ResourceCommands(bus);
    await commands.send(spec(), undefined, 'shelves/a', { type: 'Create', actor, id: 'a', resource: {} });
    await commands.send(spec(), undefined, 'shelves/a', { type: 'Delete', actor, name: 'shelves/a' });
    expect(sent.map((c) => c.constructor)).toEqual([DecideAndAppend, DecideAndAppend]);
    expect(sent.map((c) => (c as DecideAndAppend<unknown, unknown, never>).stream.create)).toEqual([true, false]);
  });

  it('a delete of a kind with unique fields claims nothing', async () => {
    const { bus, sent } = recordingBus();
    await new ResourceCommands(bus).send(spec(['code']), undefined, 'shelves/a', { type: 'Delete', actor, name: 'shelves/a' });
    expect(sent.map((c) => c.constructor)).toEqual([DecideAndAppend]);
  });
});
