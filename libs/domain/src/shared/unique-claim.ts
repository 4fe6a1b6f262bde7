/**
 * A value unique among an organization's live resources of one kind (a customer's external_id).
 *
 * Each value has a guard stream, `<kind>-<org>:<sha256 of the value>` (`customerexternalid-acme:9f86…`),
 * whose events name the resource that claimed it. Claims append with optimistic concurrency, so two
 * claims of one value are decided one after the other, whichever processes make them.
 *
 * The guard does not follow the holder's life (no release event on delete or on a change of value):
 * before deciding, the handler reads the current holder's own stream and hands the facts to the
 * decider, which judges whether the holder still holds the value. A claim is free when nobody holds
 * the value, when the claimant already holds it, when the holder is deleted, or when the holder no
 * longer carries the value and its claim is older than the in-flight window (a claim is appended
 * before its resource, so a recent claim whose resource does not show the value yet is a create or
 * update in flight and still holds).
 */
import { createHash } from 'node:crypto';
import type { Actor, Decider } from './decider';
import { alreadyExists } from './domain-error';
import { deepEqual } from './json-path';
import { kindLabel, wireField, type ResourceSpec, type ResourceState } from './resource';

/** How long a claim holds while its resource does not show the value yet. */
export const CLAIM_IN_FLIGHT_MS = 30_000;

export interface UniqueClaim {
  /** PascalCase, `CustomerExternalId`: events are `${kind}Claimed`, the stream category its lowercase. */
  kind: string;
  /** For messages: `customer external_id`. */
  label: string;
  inFlightMs: number;
}

/** What the holder's own stream says about it, read just before the claim is decided. */
export interface HolderFacts {
  /** The holder these facts describe (must be the guard's current holder). */
  name: string;
  status: 'absent' | 'deleted' | 'live';
  /** The holder's current value of the unique field. */
  value?: unknown;
}

export interface UniqueClaimState {
  holder: string | null;
  claimTime: string | null;
}

export interface UniqueClaimCommand {
  type: 'Claim';
  actor: Actor;
  /** The resource that wants the value (`customers/c1`). */
  claimant: string;
  value: string;
  /** Facts about the current holder when it is another resource. */
  holder?: HolderFacts;
}

export interface UniqueClaimEvent {
  type: string;
  data: { holder: string; claimTime: string };
}

/** The claim guarding `field` of a resource kind: `uniqueClaimOf(customerSpec, 'externalId')`. */
export function uniqueClaimOf(spec: Pick<ResourceSpec, 'kind'>, field: string, inFlightMs = CLAIM_IN_FLIGHT_MS): UniqueClaim {
  return { kind: `${spec.kind}${field[0].toUpperCase()}${field.slice(1)}`, label: `${kindLabel(spec.kind)} ${wireField(field)}`, inFlightMs };
}

/** Lowercase hex SHA-256 of a UTF-8 string. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** The guard stream of one value: hashed, so any value makes a short, safe stream ID. */
export function claimStreamId(claim: UniqueClaim, org: string, value: string): string {
  return `${claim.kind.toLowerCase()}-${org}:${sha256Hex(value)}`;
}

/** Facts about a holder from its folded resource stream. */
export function holderFacts(name: string, state: ResourceState, field: string): HolderFacts {
  if (state.resource === null) return { name, status: 'absent' };
  return { name, status: state.deleted ? 'deleted' : 'live', value: state.resource[field] };
}

export function uniqueClaimDecider(claim: UniqueClaim): Decider<UniqueClaimState, UniqueClaimCommand, UniqueClaimEvent> {
  const claimed = `${claim.kind}Claimed`;

  /** Whether the current holder still holds the value at `now`. */
  const holds = (facts: HolderFacts, value: string, claimTime: string | null, now: string): boolean => {
    if (facts.status === 'deleted') return false;
    if (facts.status === 'live' && deepEqual(facts.value, value)) return true;
    // Absent, or live with another value: a recent claim is a create or update still in flight.
    return claimTime !== null && Date.parse(now) - Date.parse(claimTime) < claim.inFlightMs;
  };

  return {
    initialState: () => ({ holder: null, claimTime: null }),
    evolve: (state, event) => (event.type === claimed ? { holder: event.data.holder, claimTime: event.data.claimTime } : state),
    decide(command, state) {
      const { actor, claimant, value } = command;
      if (state.holder !== null && state.holder !== claimant) {
        const facts = command.holder;
        if (facts?.name !== state.holder) throw new Error(`${claim.kind} claim decided without facts about its holder ${state.holder}`);
        if (holds(facts, value, state.claimTime, actor.now)) {
          throw alreadyExists(`${claim.label} '${value}' is already used by ${state.holder}`);
        }
      }
      // Always appended, even when the claimant holds the value already: the fresh claim time keeps
      // the value held while the claimant's own write is in flight.
      return [{ type: claimed, data: { holder: claimant, claimTime: actor.now } }];
    },
  };
}
