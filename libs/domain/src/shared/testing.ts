/**
 * Given / when / then for decider tests (jest only; not exported from the package index):
 *
 *   given(accessDecider, [initialized]).when(createRole(...)).then([roleCreated(...)]);
 *   given(accessDecider, []).when(deleteRole(...)).thenFails('FAILED_PRECONDITION', /not initialized/);
 *
 * History, command and every event decided are deep-frozen, so an evolve that edits an event fails the
 * test; the state handed to decide is deep-frozen, so a decide that mutates it fails. Evolve may update
 * the state it folds in place (decider.ts, the fold contract): the state after the command is folded
 * afresh, and folding the history twice must give equal states, so an initialState that hands out a
 * shared object, or an evolve that edits something outside its own state, fails too.
 */
import type { Decider, DomainEvent } from './decider';
import { DomainError, type ErrorCode } from './domain-error';

export interface Scenario<S, E> {
  /** The command produces exactly these events (which must also fold without error). Returns them. */
  then(expected: E[]): E[];
  /** The command is rejected with this code (and a message matching `message`). Returns the error. */
  thenFails(code: ErrorCode, message?: RegExp | string): DomainError;
  /** The command is accepted and changes nothing. */
  thenNothing(): void;
  /** Hands the state after the new events (and the events) to an assertion. */
  thenState(assert: (state: S, events: E[]) => void): void;
}

export function given<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, history: E[] = []) {
  return {
    when(command: C): Scenario<S, E> {
      deepFreeze(history);
      deepFreeze(command);
      const foldOf = (events: E[]): S => events.reduce(decider.evolve, decider.initialState());
      const unfrozen = foldOf(history);
      // A second fold of the same events must agree: nothing is shared between two folds.
      expect(foldOf(history)).toEqual(unfrozen);
      const before = deepFreeze(unfrozen);
      const run = (): E[] => decider.decide(command, before);
      // Before is frozen (decide must not change it), so the state after is a fold of its own.
      const after = (events: E[]): S => foldOf([...history, ...events]);
      return {
        then(expected) {
          const events = run();
          expect(events).toEqual(expected);
          after(deepFreeze(events));
          return events;
        },
        thenFails(code, message) {
          let events: E[];
          try {
            events = run();
          } catch (error) {
            expect(error).toBeInstanceOf(DomainError);
            const domainError = error as DomainError;
            expect({ code: domainError.code, message: domainError.message }).toEqual({
              code,
              message: message === undefined ? expect.any(String) : expect.stringMatching(message),
            });
            return domainError;
          }
          throw new Error(`expected ${code}, but the command produced ${JSON.stringify(events)}`);
        },
        thenNothing() {
          expect(run()).toEqual([]);
        },
        thenState(assert) {
          const events = deepFreeze(run());
          assert(after(events), events);
        },
      };
    },
  };
}

/** Binds a decider once per test file: `const given = givenFor(accessDecider)`. */
export function givenFor<S, C, E extends DomainEvent>(decider: Decider<S, C, E>) {
  return (history: E[] = []) => given(decider, history);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Runs `fn`, expects it to throw INVALID_ARGUMENT, and returns the message for further checks. */
export function invalidMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    expect((e as DomainError).code).toBe('INVALID_ARGUMENT');
    return (e as DomainError).message;
  }
  throw new Error('expected an INVALID_ARGUMENT error');
}
