/**
 * The session stream's events: the contract the runtime and notifications build on.
 *
 * Stream: `session-<org>:agents/{a}/sessions/{s}` (one per session; category `session`). The
 * session's message history IS this log: each committed message is carried by exactly one
 * SessionMessagesWritten, which names the 0-based offset of its first message, so a reader folds
 * offsets without counting anything else.
 *
 * Created / Updated / Deleted have the resource kit's shapes (`${kind}Created` { resource },
 * `${kind}Updated` { set, unset, updateTime }, `${kind}Deleted` { deleteTime }), so the kit's
 * decider and projection serve them; the rest are the session's own.
 *
 * Changes to this file are additive (new optional fields, new event types).
 */

/** An Any as the wire carries it: `@type` plus the message's fields (an Activity: one variant key). */
export type AnyMessage = {
  '@type': string;
  [field: string]: unknown;
};

/** `<type_host>/svc.nxagent.v1.Activity`: the full name after the type host. */
export const ACTIVITY_TYPE = 'svc.nxagent.v1.Activity';
/** `<type_host>/svc.nxagent.v2.AnyList` { items: Any[] }: a repeated session input. */
export const ANY_LIST_TYPE = 'svc.nxagent.v2.AnyList';

export const SESSION_STATUSES = ['STATUS_WAITING', 'STATUS_EXECUTING'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** As the write was applied (PROVISIONAL_OR_CHECKPOINT resolves to one of these when decided). */
export const APPLIED_WRITE_MODES = ['WRITE_MODE_CHECKPOINT', 'WRITE_MODE_PROVISIONAL'] as const;
export type AppliedWriteMode = (typeof APPLIED_WRITE_MODES)[number];
export const WRITE_MODES = ['WRITE_MODE_CHECKPOINT', 'WRITE_MODE_PROVISIONAL', 'WRITE_MODE_PROVISIONAL_OR_CHECKPOINT'] as const;
export type WriteMode = (typeof WRITE_MODES)[number];

/** Who wrote messages: a caller through Write / CreateSession, or the agent runtime during a turn. */
export type MessageAuthor = 'user' | 'runtime';

export const SESSION_RUNTIME_NXL = 'SESSION_RUNTIME_NXL';
export const REASONING_EFFORTS = ['low', 'medium', 'high'] as const;

/** The session resource as stored and served (response shape, lowerCamelCase). */
export type SessionResource = {
  name: string;
  associatedResources?: string[];
  title?: string;
  incognito?: boolean;
  automated?: boolean;
  /** Backtesting: write-classified tools are stubbed; always with incognito. */
  dryRun?: boolean;
  runtime?: string;
  bashPrelude?: string;
  /** Entry-task inputs by name, each an Any (wrapper value or AnyList), as accepted. */
  inputs?: Record<string, AnyMessage>;
  compatProvider?: string;
  compatModel?: string;
  compatReasoningEffort?: string;
  /** LaunchBacktest: the RFC 3339 time the session runs "at" (the runtime's clock). */
  mockTime?: string;
  /**
   * Sessions a trigger started: the trigger, the invocation's idempotency key, and the chat context of
   * a chat invocation with the channel id resolved from the bot's membership (docs/decisions.md, "Triggers").
   */
  origin?: { trigger: string; idempotencyKey?: string; chat?: Record<string, string> };
  createdBy?: string;
  createTime: string;
  updateTime: string;
  deleteTime?: string;
};

/** `SessionCreated`: the session with every setting it was created with. */
export type SessionCreatedData = {
  resource: SessionResource;
};

/** `SessionUpdated`: UpdateSession (only `associatedResources` is settable after creation). */
export type SessionUpdatedData = {
  set: { associatedResources?: string[] };
  unset: string[];
  updateTime: string;
};

/** `SessionDeleted`: soft delete; the stream stays and Get still answers. */
export type SessionDeletedData = {
  deleteTime: string;
};

/**
 * `SessionMessagesWritten`: one append of messages (one Write, the initial messages of a create, or
 * one commit of the runtime). `firstOffset` is the 0-based offset of messages[0]; the session's
 * length after it is firstOffset + messages.length.
 */
export type SessionMessagesWrittenData = {
  firstOffset: number;
  /** The Activity Anys exactly as accepted (their `@type` and variant key). */
  messages: AnyMessage[];
  /** As applied (PROVISIONAL_OR_CHECKPOINT already resolved). */
  writeMode: AppliedWriteMode;
  /** What the caller asked for, when it differs from writeMode (PROVISIONAL_OR_CHECKPOINT). */
  requestedWriteMode?: WriteMode;
  author: MessageAuthor;
  /** Runtime writes: the turn these messages belong to (see SessionTurnRequested). */
  turnId?: string;
  writeTime: string;
};

/**
 * `SessionTurnRequested`: a checkpoint write asks the agent to process everything before
 * `throughOffset` (its own messages and any provisional ones queued before them). `turnId` is
 * derived from the log, `turn-<firstOffset of the checkpoint write>`, so a runtime that crashed
 * mid-turn finds the same turn again and its writes (carrying the turnId) are recognised.
 */
export type SessionTurnRequestedData = {
  turnId: string;
  throughOffset: number;
  requestTime: string;
};

/** `SessionTurnStarted`: the runtime took the turn (once per turn; a restart does not repeat it). */
export type SessionTurnStartedData = {
  turnId: string;
  startTime: string;
};

/** `SessionTurnCompleted`: the runtime finished the turn (once per turn; a retry is a no-op). */
export type SessionTurnCompletedData = {
  turnId: string;
  completeTime: string;
};

/** `SessionStatusChanged`: STATUS_EXECUTING when a turn is requested, STATUS_WAITING when none is left. */
export type SessionStatusChangedData = {
  status: SessionStatus;
  turnId?: string;
  changeTime: string;
};

export type ProposedIssue = {
  title: string;
  description: string;
};

/** `SessionConcluded`: the agent's conclusion (DescribeSessions `conclusion`). */
export type SessionConcludedData = {
  done: { message: string; issues: ProposedIssue[] };
  turnId?: string;
  concludeTime: string;
};

/**
 * `SessionNameClaimed` on the global stream `sessionowner-<session name>`
 * (`sessionowner-agents/triage/sessions/s1`), appended with expected revision "no stream" before
 * the session stream is created: a session name belongs to one organization.
 */
export type SessionNameClaimedData = {
  org: string;
  name: string;
  claimTime: string;
};

export const SESSION_EVENTS = {
  created: 'SessionCreated',
  updated: 'SessionUpdated',
  deleted: 'SessionDeleted',
  messagesWritten: 'SessionMessagesWritten',
  turnRequested: 'SessionTurnRequested',
  turnStarted: 'SessionTurnStarted',
  turnCompleted: 'SessionTurnCompleted',
  statusChanged: 'SessionStatusChanged',
  concluded: 'SessionConcluded',
} as const;
export const SESSION_NAME_CLAIMED = 'SessionNameClaimed';

/** The global stream owning a session name. */
export function sessionOwnerStreamId(sessionName: string): string {
  return `sessionowner-${sessionName}`;
}

/** The session's own stream. */
export function sessionStreamId(org: string, sessionName: string): string {
  return `session-${org}:${sessionName}`;
}

export type SessionEvent =
  | { type: 'SessionCreated'; data: SessionCreatedData }
  | { type: 'SessionUpdated'; data: SessionUpdatedData }
  | { type: 'SessionDeleted'; data: SessionDeletedData }
  | { type: 'SessionMessagesWritten'; data: SessionMessagesWrittenData }
  | { type: 'SessionTurnRequested'; data: SessionTurnRequestedData }
  | { type: 'SessionTurnStarted'; data: SessionTurnStartedData }
  | { type: 'SessionTurnCompleted'; data: SessionTurnCompletedData }
  | { type: 'SessionStatusChanged'; data: SessionStatusChangedData }
  | { type: 'SessionConcluded'; data: SessionConcludedData };

export type SessionNameClaimedEvent = { type: 'SessionNameClaimed'; data: SessionNameClaimedData };
