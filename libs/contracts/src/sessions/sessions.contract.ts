// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Int64, ListRequest, MutatingRequest } from '../shared/requests';
import { RESOURCE_FILTERS, type ResourceApi } from '../shared/resource-api';
import { IsResource } from '../shared/responses';
import { SESSION_STATUSES, WRITE_MODES } from './session.events';

export const AGENT_SERVICE = 'svc.nxagent.v2.AgentService';

/**
 * The session's settable fields (the kit's `session` object on UpdateSession). Only
 * associatedResources changes after creation; the others are create-only (CreateSession takes them
 * at the top level of its request) and an update ignores them; mockTime is LaunchBacktest's.
 */
export class SessionInput {
  @IsOptional() @IsArray() @IsString({ each: true }) associatedResources?: string[];
  @IsOptional() @IsString() title?: string;
  @IsOptional() @IsBoolean() incognito?: boolean;
  @IsOptional() @IsBoolean() automated?: boolean;
  @IsOptional() @IsBoolean() dryRun?: boolean;
  @IsOptional() @IsString() runtime?: string;
  @IsOptional() @IsString() bashPrelude?: string;
  @IsOptional() @IsObject() inputs?: Record<string, unknown>;
  @IsOptional() @IsString() compatProvider?: string;
  @IsOptional() @IsString() compatModel?: string;
  @IsOptional() @IsString() compatReasoningEffort?: string;
  @IsOptional() @IsString() mockTime?: string;
  /** Create-only and set by InvokeTrigger alone (CreateSession does not pass it): where a trigger's seed came from. */
  @IsOptional() @IsObject() origin?: Record<string, unknown>;
}

/** Get / Update / Delete by the resource kit; CreateSession, List and Describe are the area's own. */
export const sessionsApi: ResourceApi = {
  service: AGENT_SERVICE,
  singular: 'session',
  plural: 'sessions',
  idField: 'sessionId',
  input: SessionInput,
  methods: { get: 'GetSession', update: 'UpdateSession', delete: 'DeleteSession' },
  filters: {
    ...RESOURCE_FILTERS,
    title: { type: 'string', path: 'title' },
    incognito: { type: 'boolean', path: 'incognito' },
    automated: { type: 'boolean', path: 'automated' },
    dry_run: { type: 'boolean', path: 'dryRun' },
    runtime: { type: 'string', path: 'runtime' },
    associated_resources: { type: 'string[]', path: 'associatedResources' },
    created_by: { type: 'string', path: 'createdBy' },
  },
  orderBy: { create_time: 'createTime', update_time: 'updateTime' },
  nameSortable: false,
  defaultOrder: 'create_time desc',
  permission: 'AGENTS_WRITE',
  outputOnly: ['createdBy', 'mockTime'],
  // Entry-input names are user data.
  preserveKeysUnder: ['inputs'],
};

export const SESSION_METHODS = {
  create: 'CreateSession',
  list: 'ListSessions',
  describe: 'DescribeSessions',
  write: 'Write',
  read: 'Read',
  launchBacktest: 'LaunchBacktest',
} as const;

/** CreateSession (spec part 2, "CreateSession request fields"); the rules are the domain's. */
export class CreateSessionRequest extends MutatingRequest {
  @IsString() @IsNotEmpty() parent!: string;
  @IsOptional() @IsString() sessionId?: string;
  @IsOptional() @IsArray() initialMessages?: unknown[];
  @IsOptional() @IsArray() @IsString({ each: true }) associatedResources?: string[];
  @IsOptional() @IsBoolean() incognito?: boolean;
  @IsOptional() @IsBoolean() automated?: boolean;
  @IsOptional() @IsString() bashPrelude?: string;
  @IsOptional() @IsString() runtime?: string;
  @IsOptional() @IsObject() inputs?: Record<string, unknown>;
  @IsOptional() @IsBoolean() dryRun?: boolean;
  @IsOptional() @IsString() title?: string;
  @IsOptional() @IsString() compatProvider?: string;
  @IsOptional() @IsString() compatModel?: string;
  @IsOptional() @IsString() compatReasoningEffort?: string;
}

/** ListSessions and DescribeSessions: `parent` optional (empty spans every agent). */
export class SessionListRequest extends ListRequest {
  @IsOptional() @IsString() parent?: string;
}

export class WriteRequest extends MutatingRequest {
  @IsOptional() @IsString() session?: string;
  @IsOptional() @IsString() parent?: string;
  @IsArray() messages!: unknown[];
  @IsOptional() @IsIn(WRITE_MODES, { message: `write_mode must be one of ${WRITE_MODES.join(', ')}` }) writeMode?: (typeof WRITE_MODES)[number];
}

export class ReadRequest {
  @IsString() @IsNotEmpty() session!: string;
  @Int64() sessionOffset?: number;
}

export class LaunchBacktestRequest extends MutatingRequest {
  @IsString() @IsNotEmpty() agentName!: string;
  @IsString() @IsNotEmpty() mockTime!: string;
  @IsOptional() @IsString() toolCallId?: string;
}

/** Write: the session written to (created when the request named a parent) and its length after. */
export class WriteResponse {
  @IsString() session!: string;
  @IsInt() sessionLength!: number;
}

/** Read: messages from `sessionOffset`, the session's length and its runtime status. */
export class ReadResponse {
  @IsString() session!: string;
  @IsInt() sessionOffset!: number;
  @IsInt() sessionLength!: number;
  @IsObject({ each: true }) messages!: unknown[];
  @IsIn(SESSION_STATUSES) status!: string;
}

/** LaunchBacktest: the dry-run session it created. */
export class LaunchBacktestResponse {
  @IsString() session!: string;
}

export class SessionConclusion {
  @IsBoolean() done!: boolean;
}

/** A session description (spec part 2, "Session description"): the session and its runtime state. */
export class SessionDescription {
  @IsResource(() => sessionsApi) session!: Record<string, unknown>;
  @IsIn(SESSION_STATUSES) status!: string;
  @IsInt() sessionLength!: number;
  /** When the last message was written. */
  @IsOptional() @IsString() lastMessage?: string;
  @IsOptional() @ValidateNested() @Type(() => SessionConclusion) conclusion?: SessionConclusion;
}

export class DescribeSessionsResponse {
  @ValidateNested({ each: true }) @Type(() => SessionDescription) sessionDescriptions!: SessionDescription[];
  @IsString() nextPageToken!: string;
}

/** Most messages one Read answers (ours); the next Read continues from sessionOffset + messages.length. */
export const MAX_READ_MESSAGES = 1000;
