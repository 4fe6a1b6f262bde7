/**
 * The one host of every reactor the areas declare (REACTORS): builds each on the process's services,
 * with its runner named after it (so its checkpoint and status record are the declaration's name),
 * starts them, and stops them together. The projector runs one (apps/projector/src/reactors.service.ts).
 */
import { EventReactor } from '@svc/infrastructure/reactors/event-reactor';
import { TickLoop } from '@svc/infrastructure/reactors/tick-loop';
import type { Reactor, ReactorContext, ReactorServices, Runner } from './reactor';

export class ReactorHost {
  private readonly running: Array<() => Promise<void>> = [];

  constructor(
    private readonly reactors: readonly Reactor[],
    /** The services for one reactor (its log line prefix or logger context is its name). */
    private readonly services: (reactor: Reactor) => ReactorServices,
  ) {}

  async start(): Promise<void> {
    for (const reactor of this.reactors) {
      const ctx = this.context(reactor);
      const started = await reactor.create(ctx);
      if ('off' in started) {
        ctx.log(`${reactor.name}: off (${started.off})`);
        continue;
      }
      started.runner.start();
      this.running.push(async () => {
        await started.runner.stop();
        await started.close?.();
      });
      if (started.description) ctx.log(`${reactor.name}: ${started.description}`);
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.running.splice(0).map((stop) => stop()));
  }

  private context(reactor: Reactor): ReactorContext {
    const services = this.services(reactor);
    const only = (kind: Reactor['drivenBy']) => {
      if (reactor.drivenBy !== kind) throw new Error(`reactor ${reactor.name} is driven by ${reactor.drivenBy}, not ${kind}`);
    };
    return {
      ...services,
      follow: (handler, options): Runner => {
        only('events');
        return new EventReactor(services.events, services.reads, { ...handler, name: reactor.name }, { concurrency: options.concurrency, log: services.log });
      },
      every: (everyMs, tick, hooks = {}): Runner => {
        only('timer');
        return new TickLoop(tick, { name: reactor.name, everyMs, log: services.log, ...hooks });
      },
    };
  }
}
