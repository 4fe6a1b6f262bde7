import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { resourceStreamId, type ResourceCommand, type ResourceEvent, type ResourceSpec, type ResourceState } from '@svc/domain/shared/resource';
import { claimStreamId, holderFacts, uniqueClaimDecider, uniqueClaimOf } from '@svc/domain/shared/unique-claim';
import { CommandService, type StreamCommand } from '@svc/infrastructure/commands/command-service';

/** The resource commands that may set a unique field. */
export type ClaimingCommand = Extract<ResourceCommand, { type: 'Create' | 'Update' }>;

/**
 * Claims the unique values (ResourceSpec.unique) a resource command would newly set, before the
 * command itself is decided and appended: answers the command carrying its claims.
 */
export class ClaimUniqueValues extends Command<ClaimingCommand> {
  constructor(
    readonly spec: ResourceSpec,
    /** The resource's name: the claimant of each value. */
    readonly name: string,
    /** The resource command on its own stream, as it will be sent next. */
    readonly resource: StreamCommand<ResourceState, ClaimingCommand, ResourceEvent>,
  ) {
    super();
  }
}

/**
 * The command is decided once without appending, so a request the rules refuse claims nothing; each
 * unique value it would newly set is then claimed in that value's guard stream (unique-claim.ts).
 * Two appends (claim, then resource): a claim whose resource append then fails holds nothing once its
 * in-flight window has passed. See docs/decisions.md, "Customers, known issues, runbooks".
 */
@CommandHandler(ClaimUniqueValues)
export class ClaimUniqueValuesHandler implements ICommandHandler<ClaimUniqueValues> {
  constructor(private readonly commands: CommandService) {}

  async execute({ spec, name, resource }: ClaimUniqueValues): Promise<ClaimingCommand> {
    const { command, context } = resource;
    if (!spec.unique?.length) return command;
    const check = await this.commands.handle({ ...resource, command: { ...command, claimed: 'pending' }, dryRun: true });
    // A retried request_id is answered from the stream: nothing new to claim.
    if (check.replayed || check.events.length === 0) return command;
    const data = check.events[0].data;
    const changed = ('resource' in data ? data.resource : 'set' in data ? data.set : {}) as Record<string, unknown>;
    const { actor } = command;
    const claimed: Record<string, string> = {};
    for (const field of spec.unique) {
      const value = changed[field];
      if (typeof value !== 'string') continue;
      const claim = uniqueClaimOf(spec, field);
      await this.commands.handle({
        decider: uniqueClaimDecider(claim),
        streamId: claimStreamId(claim, actor.org, value),
        command: { type: 'Claim', actor, claimant: name, value },
        // No request_id: a retried request is judged again rather than answered from an old claim.
        context: { actor, correlationId: context.requestId },
        complete: async (claimCommand, state) => {
          if (state.holder === null || state.holder === name) return claimCommand;
          const holder = await this.commands.stateOf(resource.decider, resourceStreamId(spec, actor.org, state.holder));
          return { ...claimCommand, holder: holderFacts(state.holder, holder, field) };
        },
      });
      claimed[field] = value;
    }
    return { ...command, claimed };
  }
}
