import { MembershipCache } from './membership-cache';

describe('the membership cache', () => {
  const read = { channels: [{ id: 'C1', name: '#ops' }], complete: true };

  it('reads once per TTL, and shares a read in flight', async () => {
    let now = 0;
    const cache = new MembershipCache(1_000, 100, () => now);
    let loads = 0;
    const load = async () => {
      loads++;
      return read;
    };
    await Promise.all([cache.get('k', load), cache.get('k', load)]);
    now = 999;
    expect(await cache.get('k', load)).toBe(read);
    expect(loads).toBe(1);
    now = 1_000;
    await cache.get('k', load);
    expect(loads).toBe(2);
  });

  it('remembers a failed read (null) only for the shorter failure TTL', async () => {
    let now = 0;
    const cache = new MembershipCache(1_000, 100, () => now);
    let loads = 0;
    const failing = async () => {
      loads++;
      throw new Error('slack: users.conversations could not be reached');
    };
    expect(await cache.get('k', failing)).toBeNull();
    now = 99;
    expect(await cache.get('k', failing)).toBeNull();
    expect(loads).toBe(1);
    now = 100;
    expect(await cache.get('k', async () => read)).toBe(read);
  });
});
