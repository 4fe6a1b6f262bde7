/**
 * Cron triggers (docs/decisions.md, "Trigger reactors"): each scheduled time of an enabled cron
 * trigger, in the trigger's time zone, fires the trigger once. Not log-driven: a tick (every second,
 * `SVC_CRON_TICK_MS`) reads the enabled cron triggers from their read model and fires, per trigger,
 * the latest scheduled time that is due and later than both its last fired time (from its occasion
 * stream: the durable timer is the events, not a promise in memory) and its last change. Times missed
 * while nothing ran collapse into that one fire: a projector down for a night fires a nightly
 * trigger once when it returns, never a burst. A trigger disabled at a scheduled time skips it.
 */
import { CronExpressionParser } from 'cron-parser';
import { backoffDelay, DEFAULT_BACKOFF, describeError } from '@svc/infrastructure/projection/supervisor';
import { reactorStatusKey } from '@svc/infrastructure/reactors/reactor-names';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import type { Reactor, ReactorContext } from '../../reactors/reactor';
import type { TriggerDirectory, TriggerDoc } from '../../triggers/trigger-directory';
import type { TriggerFire } from '../../triggers/trigger-fire';
import { TRIGGER_REACTORS_OFF, triggerReactorKit } from './trigger-reactor-settings';

const NAME = 'cron';
/** The tick's progress record (one name for the reactor's life). */
const STATUS_KEY = reactorStatusKey(NAME);

/** Cron triggers as a timer entry: a tick every `SVC_CRON_TICK_MS`. */
export const cronReactor: Reactor = {
  name: NAME,
  drivenBy: 'timer',
  create(ctx) {
    const kit = triggerReactorKit(ctx);
    if (!kit) return TRIGGER_REACTORS_OFF;
    const cron = new CronTicks(kit.directory, kit.firing, ctx.reads, { now: kit.now, log: ctx.log });
    return { runner: cron.runner(ctx, kit.options.cronTickMs), description: `every ${kit.options.cronTickMs} ms` };
  },
};

export interface CronTicksOptions {
  /** The reactor's clock (tests: a fixed or shifted clock). */
  now: () => Date;
  log: (line: string) => void;
}

export interface CronStatus {
  at: string;
  triggers: number;
  fired: number;
  lastFire: { trigger: string; occasion: string } | null;
  failures: number;
  lastError: string | null;
}

/** The latest time of `schedule` at or before `now`, or null when it has none. */
export function latestScheduledTime(schedule: string, timezone: string, now: Date): Date | null {
  try {
    // prev() is strictly before its current date: one millisecond on includes `now` itself.
    const expression = CronExpressionParser.parse(schedule, { tz: timezone, currentDate: new Date(now.getTime() + 1) });
    return expression.prev().toDate();
  } catch {
    return null;
  }
}

/**
 * The cron occasion due for `trigger` at `now`, given its last fire (null: never fired): the latest
 * scheduled time after both the last fire and the trigger's last change (times before a change, an
 * enabling or a new schedule, are not owed), or null. Times missed meanwhile collapse into this one.
 */
export function cronOccasion(trigger: Pick<TriggerDoc, 'configuration' | 'updateTime'>, lastFired: string | null, now: Date): string | null {
  const since = lastFired && lastFired > trigger.updateTime ? lastFired : trigger.updateTime;
  return dueOccasion(trigger, since, now);
}

/** The cron occasion due for `trigger` at `now`: the latest scheduled time after `since`, or null. */
export function dueOccasion(trigger: Pick<TriggerDoc, 'configuration'>, since: string, now: Date): string | null {
  const cron = trigger.configuration.cron;
  if (!cron || typeof cron.schedule !== 'string') return null;
  const latest = latestScheduledTime(cron.schedule, typeof cron.timezone === 'string' && cron.timezone ? cron.timezone : 'UTC', now);
  if (!latest || latest.getTime() <= Date.parse(since)) return null;
  return latest.toISOString();
}

/** What one tick does: every enabled cron trigger considered, each with its own retries. */
export class CronTicks {
  /** Per trigger, the time its schedule counts from (its last fire); loaded once from its occasion stream. */
  private readonly lastFired = new Map<string, string | null>();
  /** Triggers whose last attempt failed: retried with backoff, without holding the others back. */
  private readonly retries = new Map<string, { attempt: number; at: number }>();
  private status: CronStatus = { at: '', triggers: 0, fired: 0, lastFire: null, failures: 0, lastError: null };
  private signal: AbortSignal | null = null;

  constructor(
    private readonly directory: TriggerDirectory,
    private readonly firing: TriggerFire,
    private readonly reads: ReadStore,
    private readonly options: CronTicksOptions,
  ) {}

  /** The timer that runs the ticks. */
  runner(ctx: Pick<ReactorContext, 'every'>, tickMs: number) {
    return ctx.every(
      tickMs,
      (signal) => {
        this.signal = signal;
        return this.tick();
      },
      {
        onSuccess: () => void (this.status.failures = 0),
        onFailure: (failures, error) => {
          // A store fault: the next tick starts over from the events, so nothing is lost by waiting.
          this.status.failures = failures;
          this.status.lastError = error;
        },
      },
    );
  }

  private async tick(): Promise<void> {
    const triggers = await this.directory.enabled('cron');
    const now = this.options.now();
    for (const trigger of triggers) {
      if (this.signal?.aborted) return;
      const key = `${trigger.org}|${trigger.name}`;
      const retry = this.retries.get(key);
      if (retry && retry.at > Date.now()) continue;
      try {
        await this.consider(trigger, now);
        this.retries.delete(key);
      } catch (error) {
        const attempt = (retry?.attempt ?? 0) + 1;
        const delay = backoffDelay(attempt, DEFAULT_BACKOFF);
        this.retries.set(key, { attempt, at: Date.now() + delay });
        this.status.lastError = describeError(error);
        this.options.log(`cron: ${trigger.org}:${trigger.name}: attempt ${attempt} failed, again in ${delay} ms: ${this.status.lastError}`);
      }
    }
    const listed = new Set(triggers.map((t) => `${t.org}|${t.name}`));
    for (const key of this.retries.keys()) if (!listed.has(key)) this.retries.delete(key);
    this.status = { ...this.status, at: new Date().toISOString(), triggers: triggers.length };
    await this.reads.putMeta(STATUS_KEY, this.status);
  }

  private async consider(trigger: TriggerDoc, now: Date): Promise<void> {
    const key = `${trigger.org}|${trigger.name}`;
    if (!this.lastFired.has(key)) {
      const state = await this.firing.occasions(trigger);
      // A fire recorded just before a crash may lack its session: starting it again finds or makes it.
      if (state.last) await this.firing.startSession(trigger, { key: state.last.occasion, seed: seedOf(trigger, state.last.occasionTime) });
      this.lastFired.set(key, state.last?.occasionTime ?? null);
    }
    const occasion = cronOccasion(trigger, this.lastFired.get(key) ?? null, now);
    if (!occasion) return;
    const outcome = await this.firing.fire(trigger, { key: `cron|${occasion}`, source: 'cron', time: occasion, seed: seedOf(trigger, occasion) });
    this.lastFired.set(key, occasion);
    this.status.fired++;
    this.status.lastFire = { trigger: `${trigger.org}:${trigger.name}`, occasion };
    this.options.log(`cron: ${trigger.org}:${trigger.name} ${occasion}: ${outcome}`);
  }
}

function seedOf(trigger: TriggerDoc, occasion: string): string {
  const cron = trigger.configuration.cron ?? {};
  return `Cron trigger ${trigger.name} fired for its scheduled time ${occasion} (schedule '${String(cron.schedule)}', ${String(cron.timezone ?? 'UTC')}).`;
}
