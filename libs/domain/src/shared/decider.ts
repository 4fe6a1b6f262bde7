/**
 * An aggregate as a decider: pure functions, no I/O, no clock (time arrives in the command).
 * Handlers load a stream, fold it with `evolve`, call `decide`, and append the result.
 */
export interface DomainEvent<T extends string = string, D = Record<string, unknown>> {
  type: T;
  data: D;
}

/**
 * The fold contract (docs/decisions.md, "Folds own their state"):
 *
 * - `initialState()` returns a fresh state on every call, never a shared constant.
 * - `evolve(state, event)` may update `state` in place and return it (or return another object):
 *   a fold owns the state it folds, so adding the 10,000th member costs what adding the first did,
 *   instead of copying every collection per event. The state passed in is consumed: callers use only
 *   the returned state, and never hand one state to two folds (fork with a fresh fold instead).
 * - `evolve` never edits an event (its data may be kept in the state) nor a record it stored earlier
 *   (a role, a resource, a relation): it replaces such a value, so a reader that took a value out of
 *   the state before an event (history's before/after diff) still holds the value as it was.
 * - `decide` never mutates the state it reads.
 *
 * Each evolve does work bounded by its event, not by the state's size; fold-cost.ts measures it per
 * decider.
 */
export interface Decider<State, Command, Event extends DomainEvent> {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  /** Returns the events the command causes, or throws DomainError. An empty array means "no change". */
  decide: (command: Command, state: State) => Event[];
  /** Opt-in: the folded state may be snapshotted beside the stream (long streams). */
  snapshot?: SnapshotSpec<State>;
}

/**
 * How a decider's state is snapshotted. `fold` names the fold and its version: change it whenever
 * `evolve` or the state's shape changes, and every older snapshot is ignored (the stream is folded
 * afresh). `encode`/`decode` turn the state into JSON and back (identity when it is plain JSON).
 */
export interface SnapshotSpec<State> {
  fold: string;
  encode?: (state: State) => unknown;
  decode?: (json: unknown) => State;
}

/** Who acts, for which organization, when: attached to every command. */
export interface Actor {
  org: string;
  /** `users/{id}` or `service-accounts/{id}`. */
  actor: string;
  /** Effective entity: `users/{id}` or `agents/{id}`. */
  subject: string;
  /** Effective permission keys of the caller at the time of the request. */
  permissions: readonly string[];
  /** RFC 3339 timestamp of the request; deciders never read a clock. */
  now: string;
  /** The HTTP request acting (its X-Request-Id), for the events' metadata; deciders never read it. */
  correlationId?: string;
}

/** A fresh state folded from `events` (a new state per call, so the caller owns it). */
export function fold<S, E extends DomainEvent>(decider: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>, events: E[]): S {
  return events.reduce(decider.evolve, decider.initialState());
}
