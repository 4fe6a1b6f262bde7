import { validate, version } from 'uuid';
import { timeOrderedId } from './event-id';

describe('timeOrderedId', () => {
  it('is a UUIDv7 of the RFC 9562 layout, its first 48 bits the time in milliseconds', () => {
    const now = Date.UTC(2026, 10, 25, 17, 0, 0, 123);
    const id = timeOrderedId(now);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([validate(id), version(id)]).toEqual([true, 7]);
    expect(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(now);
  });

  it('sorts ids of later milliseconds after earlier ones, and never repeats', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => timeOrderedId(1_700_000_000_000 + Math.floor(i / 10)));
    for (let i = 10; i < ids.length; i += 10) expect(ids[i - 1] < ids[i]).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
