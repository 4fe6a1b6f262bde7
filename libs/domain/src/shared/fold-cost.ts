/**
 * Folds are linear (decider.ts, the fold contract): a property test per decider folds generated
 * histories of N and 4N events over a state instrumented to count its work, and expects about four
 * times the work, not sixteen. Work is counted, not timed, so the test says the same on any machine.
 *
 * Test-only (jest and fast-check), like testing.ts; not exported from the package index.
 */
import fc from 'fast-check';
import type { Decider, DomainEvent } from './decider';

/** Counts operations on a state and everything reachable from it. */
export class WorkCounter {
  count = 0;
  private readonly proxies = new WeakMap<object, object>();
  private readonly isProxy = new WeakSet<object>();

  /** The value as seen through the counter: objects, arrays, maps and sets count every access. */
  wrap<T>(value: T): T {
    if (typeof value !== 'object' || value === null || this.isProxy.has(value)) return value;
    const known = this.proxies.get(value);
    if (known) return known as T;
    const proxy = value instanceof Map || value instanceof Set ? this.collection(value) : this.record(value);
    this.proxies.set(value, proxy);
    this.isProxy.add(proxy);
    return proxy as T;
  }

  /** Plain objects and arrays: each read, write, key listing (per key) and descriptor costs one. */
  private record(target: object): object {
    // Frozen objects (events) must read back their own values (a Proxy invariant), so they are not wrapped deeper.
    const frozen = Object.isFrozen(target);
    return new Proxy(target, {
      get: (t, key, receiver) => {
        this.count++;
        const value: unknown = Reflect.get(t, key, receiver);
        return frozen ? value : this.wrap(value);
      },
      set: (t, key, value, receiver) => {
        this.count++;
        return Reflect.set(t, key, value, receiver);
      },
      has: (t, key) => {
        this.count++;
        return Reflect.has(t, key);
      },
      deleteProperty: (t, key) => {
        this.count++;
        return Reflect.deleteProperty(t, key);
      },
      defineProperty: (t, key, descriptor) => {
        this.count++;
        return Reflect.defineProperty(t, key, descriptor);
      },
      getOwnPropertyDescriptor: (t, key) => {
        this.count++;
        return Reflect.getOwnPropertyDescriptor(t, key);
      },
      ownKeys: (t) => {
        const keys = Reflect.ownKeys(t);
        this.count += keys.length + 1;
        return keys;
      },
    });
  }

  /**
   * Maps and sets keep their entries in internal slots a Proxy cannot see: their methods run on the
   * target, a lookup or update costing one and anything that iterates costing the collection's size.
   */
  private collection(target: Map<unknown, unknown> | Set<unknown>): object {
    const ITERATING = new Set<PropertyKey>(['forEach', 'keys', 'values', 'entries', Symbol.iterator]);
    return new Proxy(target, {
      get: (t, key) => {
        this.count++;
        const value: unknown = Reflect.get(t, key, t);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          this.count += ITERATING.has(key) ? t.size : 1;
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  }
}

/** The work of folding `events` from the decider's initial state, every state seen through a counter. */
export function foldWork<S, E extends DomainEvent>(decider: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>, events: readonly E[]): number {
  const counter = new WorkCounter();
  let state = counter.wrap(decider.initialState());
  // Re-wrapped after each event: an evolve that returns a new object is counted on the next one too.
  for (const event of events) state = counter.wrap(decider.evolve(state, event));
  return counter.count;
}

export interface LinearFoldOptions<Step> {
  /** One generated step of a history (which event, about what); `history` turns steps into events. */
  step: fc.Arbitrary<Step>;
  /** Events for the steps, each call a fresh, valid history (unique names, known references). */
  history: (steps: readonly Step[]) => DomainEvent[];
  /** Steps in the smaller history (N); the larger one repeats them four times (4N). */
  n?: number;
  numRuns?: number;
}

/**
 * Folding 4N events costs at most 4.5 times folding N (plus a constant), for generated histories.
 * The larger history repeats the smaller one's steps four times (with fresh names), so both have the
 * same mix of events: a linear fold does four times the work, a quadratic one sixteen.
 */
export function expectLinearFold<S, E extends DomainEvent, Step>(
  decider: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>,
  options: LinearFoldOptions<Step>,
): void {
  const n = options.n ?? 200;
  fc.assert(
    fc.property(fc.array(options.step, { minLength: n, maxLength: n }), (steps) => {
      const small = foldWork(decider, options.history(steps) as E[]);
      const large = foldWork(decider, options.history([...steps, ...steps, ...steps, ...steps]) as E[]);
      if (large > 4.5 * small + 1000) throw new Error(`folding 4N events took ${large} operations, N events ${small} (${(large / small).toFixed(1)} times)`);
    }),
    // No shrinking: a quadratic fold of a long history is slow to shrink, and the ratio says enough.
    { numRuns: options.numRuns ?? 15, endOnFailure: true },
  );
}
