/**
 * A reactor as its area declares it (docs/decisions.md, "One reactor registry"): a name, what drives
 * it, and how to build it on the process's services. The name is the reactor's one identity: its
 * checkpoint (`reactor:<name>`, log-driven only), its status record (`reactor:<name>:status`), its
 * log lines and its metrics label all derive from it (reactor-names.ts). One host (reactor-host.ts)
 * runs every area's list; adding a reactor is one declaration in its area.
 */
import type { CommandService } from '@svc/infrastructure/commands/command-service';
import type { Settings } from '@svc/infrastructure/config/env';
import type { EventStore } from '@svc/infrastructure/event-store/event-store.port';
import type { NotificationBus } from '@svc/infrastructure/notifications/notification-bus.port';
import type { ProjectionWaiter } from '@svc/infrastructure/projection/waiter';
import type { ReactorDefinition, ReactorJob } from '@svc/infrastructure/reactors/event-reactor';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import type { CommandSender } from '../commands/command-sender';

/** What a reactor runs on: the same command bus as the api, the stores, and its own log. */
export interface ReactorServices {
  bus: CommandSender;
  /** Folded state of a stream (stateOf): reads only; every write goes through the bus. */
  folds: Pick<CommandService, 'stateOf'>;
  events: EventStore;
  reads: ReadStore;
  waiter: ProjectionWaiter;
  notifications: NotificationBus;
  settings: Settings;
  log: (line: string) => void;
}

/** A running reactor, as the host starts and stops it. */
export interface Runner {
  start(): void;
  stop(): Promise<void>;
}

export interface ReactorContext extends ReactorServices {
  /** This reactor following the log from its checkpoint (only for `drivenBy: 'events'`). */
  follow<J extends ReactorJob>(handler: Omit<ReactorDefinition<J>, 'name'>, options: { concurrency: number }): Runner;
  /** This reactor ticking every `everyMs` (only for `drivenBy: 'timer'`); a failed tick is retried with backoff. */
  every(everyMs: number, tick: (signal: AbortSignal) => Promise<void>, hooks?: { onSuccess?: () => void; onFailure?: (failures: number, error: string) => void }): Runner;
}

export interface Started {
  runner: Runner;
  /** Said once in the log at start (how it runs: its runtime, its tick). */
  description?: string;
  /** Releases what `create` opened (a blob store), after the runner stopped. */
  close?: () => Promise<void>;
}

/** A reactor switched off by its settings, with the reason. */
export interface Off {
  off: string;
}

export interface Reactor {
  name: string;
  /** 'events': follows the log with a checkpoint of its own; 'timer': ticks, its durable state in the stores. */
  drivenBy: 'events' | 'timer';
  create(ctx: ReactorContext): Started | Off | Promise<Started | Off>;
}
