import type { Actor } from './decider';
import { given } from './testing';
import {
  claimStreamId,
  holderFacts,
  sha256Hex,
  uniqueClaimDecider,
  uniqueClaimOf,
  type HolderFacts,
  type UniqueClaimCommand,
  type UniqueClaimEvent,
} from './unique-claim';

const claim = uniqueClaimOf({ kind: 'Customer' }, 'externalId');
const decider = uniqueClaimDecider(claim);
const T0 = '2024-01-01T00:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
const actor = (now: string): Actor => ({ org: 'acme', actor: 'users/al', subject: 'users/al', permissions: [], now });
const claimBy = (claimant: string, now = at(1), holder?: HolderFacts): UniqueClaimCommand => ({
  type: 'Claim',
  actor: actor(now),
  claimant,
  value: 'ext-1',
  holder,
});
const claimedBy = (holder: string, claimTime = T0): UniqueClaimEvent => ({ type: 'CustomerExternalIdClaimed', data: { holder, claimTime } });

describe('unique claim', () => {
  it('names its events and guard stream after the resource kind and field; the stream holds the hash, not the value', () => {
    expect(claim).toMatchObject({ kind: 'CustomerExternalId', label: 'customer external_id' });
    expect(claimStreamId(claim, 'acme', 'ext-1')).toBe(`customerexternalid-acme:${sha256Hex('ext-1')}`);
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('a value nobody holds is claimed', () => {
    given(decider).when(claimBy('customers/a')).then([claimedBy('customers/a', at(1))]);
  });

  it('the holder may claim its own value again, which refreshes the claim time', () => {
    given(decider, [claimedBy('customers/a')]).when(claimBy('customers/a', at(60))).then([claimedBy('customers/a', at(60))]);
  });

  it('a live holder carrying the value keeps it, however old its claim', () => {
    const facts: HolderFacts = { name: 'customers/a', status: 'live', value: 'ext-1' };
    given(decider, [claimedBy('customers/a')])
      .when(claimBy('customers/b', at(3600), facts))
      .thenFails('ALREADY_EXISTS', /customer external_id 'ext-1' is already used by customers\/a/);
  });

  it('a deleted holder gives the value up at once', () => {
    given(decider, [claimedBy('customers/a')])
      .when(claimBy('customers/b', at(1), { name: 'customers/a', status: 'deleted', value: 'ext-1' }))
      .then([claimedBy('customers/b', at(1))]);
  });

  it('a holder not showing the value yet holds it while its claim is recent (create or update in flight)', () => {
    const absent: HolderFacts = { name: 'customers/a', status: 'absent' };
    const other: HolderFacts = { name: 'customers/a', status: 'live', value: 'ext-0' };
    for (const facts of [absent, other]) {
      given(decider, [claimedBy('customers/a')]).when(claimBy('customers/b', at(29), facts)).thenFails('ALREADY_EXISTS');
      given(decider, [claimedBy('customers/a')]).when(claimBy('customers/b', at(30), facts)).then([claimedBy('customers/b', at(30))]);
    }
  });

  it('refuses to decide without facts about the current holder (a handler bug, not a user error)', () => {
    expect(() => decider.decide(claimBy('customers/b'), { holder: 'customers/a', claimTime: T0 })).toThrow(/without facts/);
    const stale: HolderFacts = { name: 'customers/z', status: 'deleted' };
    expect(() => decider.decide(claimBy('customers/b', at(1), stale), { holder: 'customers/a', claimTime: T0 })).toThrow(/without facts/);
  });

  it('reads holder facts from the holder resource state', () => {
    const resource = { name: 'customers/a', externalId: 'ext-1' };
    expect(holderFacts('customers/a', { resource: null, deleted: false }, 'externalId')).toEqual({ name: 'customers/a', status: 'absent' });
    expect(holderFacts('customers/a', { resource, deleted: false }, 'externalId')).toEqual({ name: 'customers/a', status: 'live', value: 'ext-1' });
    expect(holderFacts('customers/a', { resource, deleted: true }, 'externalId')).toMatchObject({ status: 'deleted' });
  });
});
