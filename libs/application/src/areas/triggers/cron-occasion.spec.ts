import type { TriggerDoc } from '../../triggers/trigger-directory';
import { cronOccasion, latestScheduledTime } from './cron.reactor';

const trigger = (schedule: string, timezone?: string, updateTime = '2026-01-01T00:00:00.000Z'): Pick<TriggerDoc, 'configuration' | 'updateTime'> =>
  ({ configuration: { cron: { schedule, ...(timezone ? { timezone } : {}) } }, updateTime }) as unknown as Pick<TriggerDoc, 'configuration' | 'updateTime'>;
const at = (iso: string) => new Date(iso);

describe('the cron occasion due at a tick', () => {
  it('given a trigger never fired, fires the latest scheduled time after its last change', () => {
    expect(cronOccasion(trigger('0 * * * *'), null, at('2026-01-01T03:20:00Z'))).toBe('2026-01-01T03:00:00.000Z');
  });

  it('given times missed while nothing ran, fires once, for the latest of them (no burst)', () => {
    expect(cronOccasion(trigger('*/5 * * * *'), '2026-01-01T01:00:00.000Z', at('2026-01-01T09:03:00Z'))).toBe('2026-01-01T09:00:00.000Z');
  });

  it('given the latest scheduled time already fired, fires nothing', () => {
    expect(cronOccasion(trigger('0 * * * *'), '2026-01-01T03:00:00.000Z', at('2026-01-01T03:59:59Z'))).toBeNull();
  });

  it('given a change after the latest scheduled time (an enabling, a new schedule), owes nothing before it', () => {
    expect(cronOccasion(trigger('0 * * * *', undefined, '2026-01-01T03:10:00.000Z'), '2026-01-01T02:00:00.000Z', at('2026-01-01T03:30:00Z'))).toBeNull();
    expect(cronOccasion(trigger('0 * * * *', undefined, '2026-01-01T03:10:00.000Z'), '2026-01-01T02:00:00.000Z', at('2026-01-01T04:00:00Z'))).toBe('2026-01-01T04:00:00.000Z');
  });

  it("counts in the trigger's time zone (09:00 in Paris is 08:00 UTC in winter, 07:00 in summer)", () => {
    expect(cronOccasion(trigger('0 9 * * *', 'Europe/Paris'), null, at('2026-01-15T12:00:00Z'))).toBe('2026-01-15T08:00:00.000Z');
    expect(cronOccasion(trigger('0 9 * * *', 'Europe/Paris', '2026-06-01T00:00:00.000Z'), null, at('2026-07-15T12:00:00Z'))).toBe('2026-07-15T07:00:00.000Z');
  });

  it('includes a scheduled time equal to the tick itself', () => {
    expect(latestScheduledTime('0 * * * *', 'UTC', at('2026-01-01T03:00:00.000Z'))?.toISOString()).toBe('2026-01-01T03:00:00.000Z');
  });

  it('given a schedule that does not parse or no cron configuration, fires nothing', () => {
    expect(cronOccasion(trigger('not a schedule'), null, at('2026-01-01T03:20:00Z'))).toBeNull();
    expect(cronOccasion({ configuration: {}, updateTime: '2026-01-01T00:00:00.000Z' } as unknown as Pick<TriggerDoc, 'configuration' | 'updateTime'>, null, at('2026-01-02T00:00:00Z'))).toBeNull();
  });
});
