/**
 * The enabled triggers a reactor matches against, read from the triggers read model. A log-driven
 * reactor first waits until the triggers projection has passed the event it handles, so it matches
 * the triggers as they were when the event happened (a trigger created just before a deployment
 * succeeded is seen), never an older picture.
 */
import { storeOf } from '@svc/domain/shared/resource';
import { triggerSpec } from '@svc/domain/triggers/trigger.resource';
import type { Position } from '@svc/infrastructure/event-store/event-store.port';
import type { ProjectionWaiter } from '@svc/infrastructure/projection/waiter';
import type { Doc, Filter, ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import type { FiringTrigger } from './trigger-fire';

const TRIGGERS = storeOf(triggerSpec);
/** Triggers one reactor matches per event (ours; docs/operations.md, "Limits"). */
export const MAX_MATCHED_TRIGGERS = 1000;

export interface TriggerDoc extends FiringTrigger {
  configuration: Record<string, Record<string, unknown>>;
  createTime: string;
  updateTime: string;
}

export class TriggerDirectory {
  constructor(
    private readonly reads: ReadStore,
    private readonly waiter: ProjectionWaiter,
    private readonly waitMs = 10_000,
  ) {}

  /** Waits for the triggers projection to pass `position`; throws (to be retried) when it does not in time. */
  async caughtUp(position: Position): Promise<void> {
    if (!(await this.waiter.waitFor(TRIGGERS, position, this.waitMs))) {
      throw new Error(`the triggers projection has not reached this event after ${this.waitMs} ms`);
    }
  }

  /** Enabled, live triggers of one variant (`cron`, `postDeploy`, `row`), with conditions on its fields. */
  async enabled(variant: string, where: Filter = {}, org?: string): Promise<TriggerDoc[]> {
    const filter: Filter = { enabled: true, deleteTime: { $exists: false }, [`configuration.${variant}`]: { $exists: true } };
    if (org !== undefined) filter._org = org;
    for (const [field, value] of Object.entries(where)) filter[`configuration.${variant}.${field}`] = value;
    const docs = await this.reads.collection(TRIGGERS).find(filter, { sort: { name: 1 }, limit: MAX_MATCHED_TRIGGERS });
    return docs.map(triggerOf);
  }
}

function triggerOf(doc: Doc): TriggerDoc {
  return {
    org: String(doc._org),
    name: String(doc.name),
    agent: String(doc.agent),
    displayName: typeof doc.displayName === 'string' ? doc.displayName : undefined,
    configuration: doc.configuration as TriggerDoc['configuration'],
    createTime: String(doc.createTime),
    updateTime: String(doc.updateTime),
  };
}
