/**
 * How a trigger reactor fires an occasion (docs/decisions.md, "Trigger reactors"): record the fire in
 * the trigger's occasion stream (at most once per occasion, at most once per cooldown), then start
 * the session of the trigger's agent through the session decider, as CreateSession does (decide
 * without appending, claim the name, start the stream), with a session ID and a request id derived
 * from the occasion. A retry, a restart or a second process finds the first session; a crash between
 * the record and the session is mended by the next attempt, which finds the fire and starts the
 * session it names.
 *
 * InvokeTrigger (apps/api/src/triggers/trigger-invocations.ts) starts its sessions the same way
 * through the api's SessionCommands, with the same session ID (`occasionSessionId`), request id form,
 * seed activity and origin; the projector cannot import the api, so this is its path to the same
 * command service and deciders.
 */
import { type SessionEvent, sessionOwnerStreamId, sessionStreamId } from '@svc/contracts/sessions/session.events';
import { type OccasionSource, triggerOccasionStreamId } from '@svc/contracts/reactors/trigger-occasion.events';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { occasionRequestId, triggerOccasionsDecider, type TriggerOccasionsState } from '@svc/domain/reactors/trigger-occasions.decider';
import { occasionSessionId, seedActivity } from '@svc/domain/triggers/invocation';
import type { Actor } from '@svc/domain/shared/decider';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import { sessionNameDecider } from '@svc/domain/sessions/session-name.decider';
import { type SessionCommand, sessionDecider, sessionNameOf, type SessionState } from '@svc/domain/sessions/session.decider';
import type { CommandService } from '../commands/command-service';

const agentFold = resourceDecider(agentSpec);

/** The trigger as a reactor sees it (its read-model document). */
export interface FiringTrigger {
  org: string;
  name: string;
  agent: string;
  displayName?: string;
}

export interface Occasion {
  key: string;
  source: OccasionSource;
  /** When it happened: the scheduled time, the due time, the row's ingestion. */
  time: string;
  /** The seed activity's text. */
  seed: string;
  cooldownMs?: number;
}

export type FireOutcome = 'fired' | 'already-fired' | 'cooldown' | 'agent-gone' | 'agent-off';

export class TriggerFire {
  constructor(
    private readonly commands: CommandService,
    private readonly typeHost: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The occasion stream's state (what fired, what is due). */
  occasions(trigger: Pick<FiringTrigger, 'org' | 'name'>): Promise<TriggerOccasionsState> {
    return this.commands.stateOf(triggerOccasionsDecider, triggerOccasionStreamId(trigger.org, trigger.name));
  }

  /**
   * Fires one occasion: records it (unless fired or in cooldown), then makes sure its session exists.
   * An agent that is off starts nothing: the occasion is recorded as skipped instead.
   */
  async fire(trigger: FiringTrigger, occasion: Occasion): Promise<FireOutcome> {
    const agent = await this.agentOf(trigger);
    const handled = await this.record(trigger, occasion, typeof agent.resource?.state === 'string' ? agent.resource.state : undefined);
    if (handled.state.skipped.has(occasion.key)) return 'agent-off';
    if (!handled.state.fired.has(occasion.key)) return 'cooldown';
    const started = await this.startSession(trigger, occasion);
    if (!started) return 'agent-gone';
    return handled.events.length > 0 ? 'fired' : 'already-fired';
  }

  /**
   * Records that an occasion came while the trigger's agent was off (a chat message, which starts its
   * session through InvokeTrigger's path rather than `fire`): skipped for good.
   */
  async skip(trigger: FiringTrigger, occasion: Pick<Occasion, 'key' | 'source' | 'time'>): Promise<void> {
    await this.record(trigger, occasion, 'AGENT_STATE_OFF');
  }

  private agentOf(trigger: Pick<FiringTrigger, 'org' | 'agent'>) {
    return this.commands.stateOf(agentFold, resourceStreamId(agentSpec, trigger.org, trigger.agent));
  }

  private record(trigger: FiringTrigger, occasion: Pick<Occasion, 'key' | 'source' | 'time' | 'cooldownMs'>, agentState: string | undefined) {
    const session = sessionNameOf(trigger.agent, occasionSessionId(trigger.org, trigger.name, occasion.key));
    return this.commands.handle({
      decider: triggerOccasionsDecider,
      streamId: triggerOccasionStreamId(trigger.org, trigger.name),
      command: {
        type: 'FireOccasion',
        actor: this.actor(trigger),
        occasion: occasion.key,
        source: occasion.source,
        session,
        occasionTime: occasion.time,
        cooldownMs: occasion.cooldownMs,
        agent: trigger.agent,
        agentState,
      },
      context: { actor: this.actor(trigger), causationId: occasion.key },
    });
  }

  /** Records a durable timer: the occasion fires at `dueTime` (once per occasion, not after it fired). */
  async schedule(trigger: Pick<FiringTrigger, 'org' | 'name'>, timer: { occasion: string; source: OccasionSource; dueTime: string; cause: string }): Promise<void> {
    await this.commands.handle({
      decider: triggerOccasionsDecider,
      streamId: triggerOccasionStreamId(trigger.org, trigger.name),
      command: { type: 'ScheduleFire', actor: this.actor(trigger), ...timer },
      context: { actor: this.actor(trigger), causationId: timer.cause },
    });
  }

  /**
   * Starts (or finds) the occasion's session; false when the trigger's agent no longer exists, which
   * no retry mends (the fire stays recorded, and the log line says why no session followed).
   */
  async startSession(trigger: FiringTrigger, occasion: Pick<Occasion, 'key' | 'seed'>): Promise<boolean> {
    const { org } = trigger;
    const agent = await this.agentOf(trigger);
    if (!agent.resource || agent.deleted) return false;
    const id = occasionSessionId(org, trigger.name, occasion.key);
    const name = sessionNameOf(trigger.agent, id);
    const requestId = occasionRequestId(trigger.name, occasion.key);
    const actor = this.actor(trigger);
    const command: SessionCommand = {
      type: 'CreateSession',
      actor,
      id,
      parent: trigger.agent,
      // As InvokeTrigger's sessions: the origin names the trigger; the title says which occasion.
      settings: {
        title: `${trigger.displayName || trigger.name}: ${occasion.key}`.slice(0, 200),
        automated: true,
        origin: { trigger: trigger.name },
        associatedResources: [trigger.name],
      },
      refs: new Map([[trigger.agent, agent.resource]]),
      typeHost: this.typeHost,
      write: { messages: [seedActivity(this.typeHost, occasion.seed)], writeMode: 'WRITE_MODE_CHECKPOINT' },
    };
    const send = (options: { create?: boolean; dryRun?: boolean }) =>
      this.commands.handle<SessionState, SessionCommand, SessionEvent>({
        decider: sessionDecider,
        streamId: sessionStreamId(org, name),
        command,
        context: { actor, requestId },
        ...options,
      });
    // As CreateSession: bad input claims nothing; the name is claimed for the organization; then the stream.
    await send({ dryRun: true });
    await this.commands.handle({
      decider: sessionNameDecider,
      streamId: sessionOwnerStreamId(name),
      command: { type: 'ClaimSessionName', actor, name },
      context: { actor, requestId },
      create: true,
    });
    await send({ create: true });
    return true;
  }

  /** The trigger speaks for itself: its occasions and sessions are authored by the trigger. */
  private actor(trigger: Pick<FiringTrigger, 'org' | 'name'>): Actor {
    return { org: trigger.org, actor: trigger.name, subject: trigger.name, permissions: [], now: this.now().toISOString() };
  }
}
