/**
 * An aggregate as a decider: pure functions, no I/O, no clock (time arrives in the command).
 * Handlers load a stream, fold it with `evolve`, call `decide`, and append the result.
 */
export interface DomainEvent<T extends string = string, D = Record<string, unknown>> {
  type: T;
  data: D;
}

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

export function fold<S, E extends DomainEvent>(decider: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>, events: E[]): S {
  return events.reduce(decider.evolve, decider.initialState());
}
