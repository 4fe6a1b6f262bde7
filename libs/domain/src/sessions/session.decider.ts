/**
 * The session aggregate (stream `session-<org>:agents/{a}/sessions/{s}`): the resource (the kit's
 * decider, by delegation), its message log, the turns checkpoint writes request and the runtime
 * completes, the status, and the conclusion. Events: libs/contracts/src/sessions/session.events.ts.
 *
 * Turns: a checkpoint write requests turn `turn-<offset of its first message>` covering everything
 * before `throughOffset`; the status is STATUS_EXECUTING while any requested turn is open and
 * STATUS_WAITING otherwise. Starting and completing a turn are idempotent (a repeat decides
 * nothing), and a completion commits the turn's messages and conclusion in the same append, so a
 * runtime that crashes mid-turn redoes the turn rather than losing or duplicating it.
 */
import {
  SESSION_EVENTS as E,
  type AnyMessage,
  type AppliedWriteMode,
  type ProposedIssue,
  type SessionConcludedData,
  type SessionEvent,
  type SessionStatus,
  type WriteMode,
} from '@svc/contracts/sessions/session.events';
import type { Actor, Decider } from '../shared/decider';
import { failedPrecondition, invalid, notFound } from '../shared/domain-error';
import type { JsonObject } from '../shared/json-path';
import { resourceName, type References, type ResourceCommand, type ResourceEvent, type ResourceState } from '../shared/resource';
import { resourceDecider } from '../shared/resource.decider';
import { checkActivities } from './messages';
import { sessionSpec, sessionSpecWith } from './session.resource';

export interface SessionState {
  resource: ResourceState;
  /** Messages in the log (the next message's offset). */
  length: number;
  status: SessionStatus;
  /** Requested and not yet completed, oldest first. */
  openTurns: string[];
  startedTurns: string[];
  lastMessageTime?: string;
  conclusion?: SessionConcludedData['done'];
}

export interface MessagesInput {
  messages: unknown[];
  writeMode: WriteMode;
}

export type SessionCommand =
  | {
      type: 'CreateSession';
      actor: Actor;
      id: string;
      /** `agents/{a}`, live (the handler looked it up); its document is in `refs`. */
      parent: string;
      settings: JsonObject;
      refs: References;
      typeHost: string;
      initialMessages?: unknown[];
      /** Write with parent: the write that creates the session. */
      write?: MessagesInput;
    }
  | ({ type: 'Write'; actor: Actor; name: string; typeHost: string } & MessagesInput)
  | { type: 'StartTurn'; actor: Actor; turnId: string }
  | { type: 'CompleteTurn'; actor: Actor; turnId: string; messages?: AnyMessage[]; conclusion?: { message: string; issues: ProposedIssue[] } };

const kitDeciders = new Map<string, Decider<ResourceState, ResourceCommand, ResourceEvent>>();

/** The kit's decider of the session resource, for this type host. */
function kitFor(typeHost: string) {
  let kit = kitDeciders.get(typeHost);
  if (!kit) kitDeciders.set(typeHost, (kit = resourceDecider(sessionSpecWith({ typeHost }))));
  return kit;
}
/** Folding does not depend on the type host. */
const kitFold = resourceDecider(sessionSpec);

export const turnIdAt = (offset: number): string => `turn-${offset}`;
const offsetOfTurn = (turnId: string): number => (/^turn-\d+$/.test(turnId) ? Number(turnId.slice(5)) : NaN);

/** The events of one user write at the end of the log. */
function written(state: SessionState, input: MessagesInput, messages: AnyMessage[], now: string): SessionEvent[] {
  const firstOffset = state.length;
  const executing = state.openTurns.length > 0;
  const writeMode: AppliedWriteMode =
    input.writeMode === 'WRITE_MODE_PROVISIONAL' || (input.writeMode === 'WRITE_MODE_PROVISIONAL_OR_CHECKPOINT' && executing)
      ? 'WRITE_MODE_PROVISIONAL'
      : 'WRITE_MODE_CHECKPOINT';
  const requested = input.writeMode === writeMode ? {} : { requestedWriteMode: input.writeMode };
  const events: SessionEvent[] = [
    { type: E.messagesWritten, data: { firstOffset, messages, writeMode, ...requested, author: 'user', writeTime: now } },
  ];
  if (writeMode === 'WRITE_MODE_CHECKPOINT') {
    const turnId = turnIdAt(firstOffset);
    events.push({ type: E.turnRequested, data: { turnId, throughOffset: firstOffset + messages.length, requestTime: now } });
    if (state.status !== 'STATUS_EXECUTING') events.push({ type: E.statusChanged, data: { status: 'STATUS_EXECUTING', turnId, changeTime: now } });
  }
  return events;
}

function live(state: SessionState, name: string): void {
  if (state.resource.resource === null) throw notFound(`session '${name}' not found`);
  if (state.resource.deleted) throw failedPrecondition(`session '${name}' is deleted`);
}

function decide(command: SessionCommand, state: SessionState): SessionEvent[] {
  const { actor } = command;
  switch (command.type) {
    case 'CreateSession': {
      const initial = command.initialMessages?.length ? checkActivities(command.initialMessages, command.typeHost, 'initial_messages') : [];
      const toWrite = command.write ? checkActivities(command.write.messages, command.typeHost) : [];
      if (command.write && toWrite.length === 0) throw invalid('messages must not be empty');
      const decider = kitFor(command.typeHost);
      const kitCommand: ResourceCommand = { type: 'Create', actor, id: command.id, resource: command.settings, refs: command.refs, parent: command.parent };
      const created = decider.decide(kitCommand, state.resource) as SessionEvent[];
      // Decide never mutates its state, and evolve updates in place: fold onto a copy of its own.
      let next = created.reduce(evolve, forked(state));
      const events = [...created];
      // Initial messages are written on creation, queued like a provisional write: the first checkpoint write processes them.
      for (const [messages, input] of [
        [initial, { messages: initial, writeMode: 'WRITE_MODE_PROVISIONAL' }],
        [toWrite, command.write],
      ] as const) {
        if (!input || messages.length === 0) continue;
        const more = written(next, input, messages, actor.now);
        next = more.reduce(evolve, next);
        events.push(...more);
      }
      return events;
    }
    case 'Write': {
      live(state, command.name);
      const messages = checkActivities(command.messages, command.typeHost);
      if (messages.length === 0) throw invalid('messages must not be empty');
      return written(state, command, messages, actor.now);
    }
    case 'StartTurn': {
      if (state.startedTurns.includes(command.turnId)) return [];
      if (!state.openTurns.includes(command.turnId)) return knownTurn(state, command.turnId);
      return [{ type: E.turnStarted, data: { turnId: command.turnId, startTime: actor.now } }];
    }
    case 'CompleteTurn': {
      const { turnId } = command;
      if (!state.openTurns.includes(turnId)) return knownTurn(state, turnId);
      const events: SessionEvent[] = [];
      if (command.messages?.length) {
        events.push({
          type: E.messagesWritten,
          data: { firstOffset: state.length, messages: command.messages, writeMode: 'WRITE_MODE_CHECKPOINT', author: 'runtime', turnId, writeTime: actor.now },
        });
      }
      if (command.conclusion) events.push({ type: E.concluded, data: { done: command.conclusion, turnId, concludeTime: actor.now } });
      events.push({ type: E.turnCompleted, data: { turnId, completeTime: actor.now } });
      if (state.openTurns.length === 1) events.push({ type: E.statusChanged, data: { status: 'STATUS_WAITING', turnId, changeTime: actor.now } });
      return events;
    }
  }
}

/** A turn that is not open: already completed (a repeat decides nothing) or never requested. */
function knownTurn(state: SessionState, turnId: string): SessionEvent[] {
  const offset = offsetOfTurn(turnId);
  if (Number.isInteger(offset) && offset < state.length) return [];
  throw failedPrecondition(`turn '${turnId}' was never requested in this session`);
}

/**
 * Updates the state in place (decider.ts, the fold contract): a session's log grows for its whole
 * life, so no event copies the turn lists; a completion removes its turn from the (few) open ones.
 */
function evolve(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case E.messagesWritten:
      state.length = event.data.firstOffset + event.data.messages.length;
      state.lastMessageTime = event.data.writeTime;
      return state;
    case E.turnRequested:
      state.openTurns.push(event.data.turnId);
      return state;
    case E.turnStarted:
      state.startedTurns.push(event.data.turnId);
      return state;
    case E.turnCompleted:
      remove(state.openTurns, event.data.turnId);
      remove(state.startedTurns, event.data.turnId);
      return state;
    case E.statusChanged:
      state.status = event.data.status;
      return state;
    case E.concluded:
      state.conclusion = event.data.done;
      return state;
    default:
      state.resource = kitFold.evolve(state.resource, event as ResourceEvent);
      return state;
  }
}

/** A copy of the state another fold may update (the lists are the only nested mutable parts). */
function forked(state: SessionState): SessionState {
  return { ...state, openTurns: [...state.openTurns], startedTurns: [...state.startedTurns] };
}

/** Removes `item` (a turn is listed once; oldest first, so a completion usually finds it in front). */
function remove(list: string[], item: string): void {
  const at = list.indexOf(item);
  if (at >= 0) list.splice(at, 1);
}

export const sessionDecider: Decider<SessionState, SessionCommand, SessionEvent> = {
  initialState: () => ({ resource: kitFold.initialState(), length: 0, status: 'STATUS_WAITING', openTurns: [], startedTurns: [] }),
  evolve,
  decide,
};

/** The name CreateSession gives a session of `parent`. */
export const sessionNameOf = (parent: string, id: string): string => resourceName(sessionSpec, id, parent);
