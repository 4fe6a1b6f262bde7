import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import type { Settings } from '@svc/infrastructure/config/env';
import type { EventStore } from '@svc/infrastructure/event-store/event-store.port';
import { EVENT_STORE, READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import { ProjectionWaiter } from '@svc/infrastructure/projection/waiter';
import { TriggerDirectory } from '@svc/application/triggers/trigger-directory';
import { TriggerFire } from '@svc/application/triggers/trigger-fire';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { CronReactor } from './cron.reactor';
import { PostDeployReactor } from './post-deploy.reactor';
import { RowReactor } from './row.reactor';

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

/**
 * Hosts the trigger reactors in the projector process, beside (not inside) the projections: cron,
 * post-deploy and rows, each with its own checkpoint or durable state (docs/decisions.md, "Trigger reactors").
 */
@Injectable()
export class TriggerReactorsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('triggers');
  private readonly running: Array<{ start(): void; stop(): Promise<void> }> = [];

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly commands: CommandService,
    private readonly waiter: ProjectionWaiter,
    private readonly bus: CommandBus,
  ) {}

  onApplicationBootstrap(): void {
    const options = triggerReactorSettings();
    if (!options.enabled) {
      this.logger.log('trigger reactors: off (SVC_TRIGGER_REACTORS=off)');
      return;
    }
    const now = () => new Date(Date.now() + options.clockOffsetMs);
    const log = (line: string) => this.logger.log(line);
    const firing = new TriggerFire(this.bus, this.commands, this.settings.typeHost, now);
    const directory = new TriggerDirectory(this.reads, this.waiter);
    this.running.push(
      new CronReactor(directory, firing, this.reads, { tickMs: options.cronTickMs, now, log }),
      new PostDeployReactor(this.events, this.reads, this.commands, directory, firing, now, { concurrency: options.timers, log }),
      new RowReactor(this.events, this.reads, directory, firing, { concurrency: 4, log }),
    );
    for (const reactor of this.running) reactor.start();
    this.logger.log(`trigger reactors: cron (every ${options.cronTickMs} ms), post-deploy, rows`);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.running.map((r) => r.stop()));
  }
}
