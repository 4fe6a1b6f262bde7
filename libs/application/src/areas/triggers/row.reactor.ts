/**
 * Row triggers (docs/decisions.md, "Trigger reactors"), on the shared reactor runner with its own
 * checkpoint `reactor:rows`. Each `RowsIngested` is matched, row by row, against the predicates of
 * the enabled row triggers of its table in its organization (the parsed tree evaluated against the
 * row, linear in the predicate: no eval). A match fires the trigger unless a fire of the same
 * trigger is within its cooldown, counted in ingestion times from its occasion stream, so the
 * cooldown holds across processes and restarts. The occasion is the ingestion event and the row's
 * index: a redelivered ingestion fires nothing twice.
 */
import { ROWS_INGESTED, type RowValue } from '@svc/contracts/rows/rows.contract';
import { inCooldown } from '@svc/domain/reactors/trigger-occasions.decider';
import { durationMillis } from '@svc/domain/triggers/durations';
import { parseRowPredicate, type PredicateNode, rowMatches } from '@svc/domain/triggers/row-predicate';
import type { RecordedEvent } from '@svc/infrastructure/event-store/event-store.port';
import type { ReactorJob } from '@svc/infrastructure/reactors/event-reactor';
import type { Reactor } from '../../reactors/reactor';
import type { TriggerDirectory, TriggerDoc } from '../../triggers/trigger-directory';
import type { FireOutcome, TriggerFire } from '../../triggers/trigger-fire';
import { TRIGGER_REACTORS_OFF, triggerReactorKit } from './trigger-reactor-settings';

type RowsJob = ReactorJob & { org: string; table: string; rows: Array<Record<string, RowValue>>; ingestTime: string; record: RecordedEvent };

export const rowsReactor: Reactor = {
  name: 'rows',
  drivenBy: 'events',
  create(ctx) {
    const kit = triggerReactorKit(ctx);
    if (!kit) return TRIGGER_REACTORS_OFF;
    const matcher = new RowMatcher(kit.directory, kit.firing);
    return { runner: ctx.follow<RowsJob>({ select, run: (job) => matcher.match(job) }, { concurrency: 4 }) };
  },
};

class RowMatcher {
  constructor(
    private readonly directory: TriggerDirectory,
    private readonly firing: TriggerFire,
  ) {}

  async match(job: RowsJob): Promise<string> {
    await this.directory.caughtUp(job.record.position);
    const triggers = await this.directory.enabled('row', { tableName: job.table }, job.org);
    const outcomes: FireOutcome[] = [];
    for (const trigger of triggers) outcomes.push(...(await this.matchTrigger(trigger, job)));
    const fired = outcomes.filter((o) => o === 'fired').length;
    return `${job.rows.length} row(s), ${triggers.length} trigger(s): ${fired} fired, ${outcomes.length - fired} matched but not fired (${[...new Set(outcomes)].join(', ') || 'none'})`;
  }

  private async matchTrigger(trigger: TriggerDoc, job: RowsJob): Promise<FireOutcome[]> {
    const config = trigger.configuration.row;
    let predicate: PredicateNode;
    try {
      predicate = parseRowPredicate(config.predicate);
    } catch {
      return []; // validated on create and update; a predicate that no longer parses matches nothing
    }
    const cooldownMs = durationMillis(config.cooldown) ?? 0;
    // The occasion stream is read once per trigger and ingestion; the decider checks again when firing.
    const state = await this.firing.occasions(trigger);
    const outcomes: FireOutcome[] = [];
    for (const [index, row] of job.rows.entries()) {
      const key = `row|${job.record.id}/${index}`;
      if (!rowMatches(predicate, row)) continue;
      if (!state.fired.has(key) && inCooldown(state, job.ingestTime, cooldownMs)) {
        outcomes.push('cooldown');
        continue;
      }
      const seed = `Row trigger ${trigger.name}: a row of ${job.table} matched '${String(config.predicate)}': ${JSON.stringify(row)}`;
      const outcome = await this.firing.fire(trigger, { key, source: 'row', time: job.ingestTime, seed, cooldownMs });
      outcomes.push(outcome);
      if (outcome === 'fired') {
        state.fired.add(key);
        state.last = { occasion: key, occasionTime: job.ingestTime };
      }
    }
    return outcomes;
  }
}

function select(record: RecordedEvent): RowsJob | null {
  if (record.type !== ROWS_INGESTED || !record.streamId.startsWith('rows-')) return null;
  const { table, rows, ingestTime } = record.data as { table?: unknown; rows?: unknown; ingestTime?: unknown };
  if (typeof table !== 'string' || !Array.isArray(rows) || typeof ingestTime !== 'string') return null;
  const org = record.metadata.org;
  // One table's ingestions are matched in log order (cooldowns count in that order).
  return { key: `${org}|${table}`, label: `${org}:${table} ${record.id}`, org, table, rows: rows as RowsJob['rows'], ingestTime, record };
}
