/**
 * What the trigger reactors (cron, post-deploy, rows) share: their settings (docs/operations.md,
 * "Trigger reactors"), their clock, and the firing and trigger lookup built on the process's services.
 */
import type { ReactorServices } from '../../reactors/reactor';
import { TriggerDirectory } from '../../triggers/trigger-directory';
import { TriggerFire } from '../../triggers/trigger-fire';

/** Settings of the trigger reactors (docs/operations.md, "Trigger reactors"). */
export function triggerReactorSettings(env: NodeJS.ProcessEnv = process.env) {
  const number = (name: string, fallback: number, min: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number of at least ${min}, got '${raw}'`);
    return value;
  };
  return {
    enabled: env.SVC_TRIGGER_REACTORS !== 'off',
    cronTickMs: number('SVC_CRON_TICK_MS', 1000, 50),
    /** Shifts the reactors' clock (cron schedules, post-deploy due times): a test fires a daily trigger now. */
    clockOffsetMs: number('SVC_CLOCK_OFFSET_MS', 0, Number.MIN_SAFE_INTEGER),
    /** Post-deploy timers waiting at once; each holds the reactor's checkpoint until it fires. */
    timers: number('SVC_POST_DEPLOY_TIMERS', 1000, 1),
  };
}

export type TriggerReactorSettings = ReturnType<typeof triggerReactorSettings>;

/** A trigger reactor's settings, clock, firing and directory; null when the trigger reactors are off. */
export function triggerReactorKit(services: ReactorServices) {
  const options = triggerReactorSettings();
  if (!options.enabled) return null;
  const now = () => new Date(Date.now() + options.clockOffsetMs);
  return {
    options,
    now,
    firing: new TriggerFire(services.bus, services.folds, services.settings.typeHost, now),
    directory: new TriggerDirectory(services.reads, services.waiter),
  };
}

export const TRIGGER_REACTORS_OFF = { off: 'SVC_TRIGGER_REACTORS=off' } as const;
