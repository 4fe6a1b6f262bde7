/**
 * How an occasion fires (docs/decisions.md, "Trigger reactors"): the thin executor of the occasion
 * step (occasion-step.ts). It reads the folds the step needs and sends the step's commands through
 * the command bus: record the fire in the trigger's occasion stream (at most once per occasion, at
 * most once per cooldown), then start the session of the trigger's agent as every session starts
 * (start-session.ts). A retry, a restart or a second process finds the first session; a crash between
 * the record and the session is mended by the next attempt, which finds the fire and starts the
 * session it names. InvokeTrigger (the api) and the trigger reactors (the projector) both use it.
 */
import { triggerOccasionStreamId } from '@svc/contracts/reactors/trigger-occasion.events';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { triggerOccasionsDecider, type TriggerOccasionsState } from '@svc/domain/reactors/trigger-occasions.decider';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import type { CommandService } from '@svc/infrastructure/commands/command-service';
import type { CommandSender } from '../commands/command-sender';
import { startSession } from '../sessions/start-session';
import {
  afterRecord,
  agentStateOf,
  type FireOutcome,
  type FiringTrigger,
  fireOutcome,
  type Occasion,
  occasionSession,
  recordOccasion,
  scheduleOccasion,
  triggerActor,
} from './occasion-step';

export type { FireOutcome, FiringTrigger, Occasion } from './occasion-step';

const agentFold = resourceDecider(agentSpec);

export class TriggerFire {
  constructor(
    private readonly bus: CommandSender,
    /** Reads folded state (stateOf); every write goes through the bus. */
    private readonly folds: Pick<CommandService, 'stateOf'>,
    private readonly typeHost: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The occasion stream's state (what fired, what is due). */
  occasions(trigger: Pick<FiringTrigger, 'org' | 'name'>): Promise<TriggerOccasionsState> {
    return this.folds.stateOf(triggerOccasionsDecider, triggerOccasionStreamId(trigger.org, trigger.name));
  }

  /**
   * Fires one occasion: records it (unless fired or in cooldown), then makes sure its session exists.
   * An agent that is off starts nothing: the occasion is recorded as skipped instead.
   */
  async fire(trigger: FiringTrigger, occasion: Occasion): Promise<FireOutcome> {
    const agent = await this.agentOf(trigger);
    const recorded = await this.bus.execute(recordOccasion(trigger, occasion, agentStateOf(agent), this.actor(trigger)));
    const next = afterRecord(recorded.state, occasion.key);
    if (next !== 'start-session') return next;
    if (!(await this.startSession(trigger, occasion))) return 'agent-gone';
    return fireOutcome(recorded);
  }

  /**
   * Records that an occasion came while the trigger's agent was off (a chat message, which starts its
   * session through InvokeTrigger's path rather than `fire`): skipped for good.
   */
  async skip(trigger: FiringTrigger, occasion: Pick<Occasion, 'key' | 'source' | 'time'>): Promise<void> {
    await this.bus.execute(recordOccasion(trigger, occasion, 'AGENT_STATE_OFF', this.actor(trigger)));
  }

  /** Records a durable timer: the occasion fires at `dueTime` (once per occasion, not after it fired). */
  async schedule(trigger: Pick<FiringTrigger, 'org' | 'name'>, timer: Parameters<typeof scheduleOccasion>[1]): Promise<void> {
    await this.bus.execute(scheduleOccasion(trigger, timer, this.actor(trigger)));
  }

  /**
   * Starts (or finds) the occasion's session; false when the trigger's agent no longer exists, which
   * no retry mends (the fire stays recorded, and the log line says why no session followed).
   */
  async startSession(trigger: FiringTrigger, occasion: Pick<Occasion, 'key' | 'seed'>): Promise<boolean> {
    const start = occasionSession(trigger, occasion, await this.agentOf(trigger), this.typeHost, this.actor(trigger));
    if (!start) return false;
    await startSession(this.bus, start);
    return true;
  }

  private agentOf(trigger: Pick<FiringTrigger, 'org' | 'agent'>) {
    return this.folds.stateOf(agentFold, resourceStreamId(agentSpec, trigger.org, trigger.agent));
  }

  private actor(trigger: Pick<FiringTrigger, 'org' | 'name'>) {
    return triggerActor(trigger, this.now());
  }
}
