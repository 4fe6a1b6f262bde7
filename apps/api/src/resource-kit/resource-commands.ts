/**
 * The kit's command handling as a table (STYLE.md): per resource command, whether it starts its
 * stream and whether it claims unique values first. The stream is always the resource's own, the
 * decider the spec's, the projection to wait for the resource's; loading, retries, appending and the
 * wait are the bus's one write path (DecideAndAppend).
 */
import type { CommandBus } from '@nestjs/cqrs';
import type { Decider } from '@svc/domain/shared/decider';
import { resourceStreamId, storeOf, type Resource, type ResourceCommand, type ResourceEvent, type ResourceSpec, type ResourceState } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import type { Handled } from '@svc/infrastructure/commands/command-service';
import { ClaimUniqueValues, type ClaimingCommand } from '@svc/application/commands/claim-unique-values';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';

interface Row {
  /** Appends with expected revision "no stream" without reading first: an existing one answers ALREADY_EXISTS. */
  startsStream: boolean;
  /** May set a unique field (ResourceSpec.unique): the values are claimed before the command is decided. */
  claimsUnique: boolean;
}

const COMMANDS: Record<ResourceCommand['type'], Row> = {
  Create: { startsStream: true, claimsUnique: true },
  Update: { startsStream: false, claimsUnique: true },
  Put: { startsStream: false, claimsUnique: false },
  Delete: { startsStream: false, claimsUnique: false },
  Undelete: { startsStream: false, claimsUnique: false },
  Act: { startsStream: false, claimsUnique: false },
  Sync: { startsStream: false, claimsUnique: false },
};

const claims = (command: ResourceCommand): command is ClaimingCommand => COMMANDS[command.type].claimsUnique;

export class ResourceCommands {
  private readonly deciders = new Map<ResourceSpec, Decider<ResourceState, ResourceCommand, ResourceEvent>>();

  constructor(private readonly bus: CommandBus) {}

  /**
   * Sends one resource command down the write path and answers with the resource once its read model
   * has it (areas with a command of their own, such as the evaluations' Put, call this too).
   */
  async send(spec: ResourceSpec, requestId: string | undefined, name: string, command: ResourceCommand): Promise<Resource> {
    const decider = this.decider(spec);
    const streamId = resourceStreamId(spec, command.actor.org, name);
    const context = { actor: command.actor, requestId };
    const decided =
      spec.unique?.length && claims(command) ? await this.bus.execute(new ClaimUniqueValues(spec, name, { decider, streamId, command, context })) : command;
    const row = COMMANDS[command.type];
    const handled: Handled<ResourceState> = await this.bus.execute(
      new DecideAndAppend({ decider, streamId, command: decided, context, create: row.startsStream }, spec.projection ?? storeOf(spec)),
    );
    // An implicit resource an update left unchanged still has no stream: its read-model document is the answer.
    const unchanged = command.type === 'Update' ? command.existing : null;
    return (handled.state.resource ?? unchanged) as Resource;
  }

  private decider(spec: ResourceSpec) {
    let decider = this.deciders.get(spec);
    if (!decider) this.deciders.set(spec, (decider = resourceDecider(spec)));
    return decider;
  }
}
