/**
 * Triggers (spec part 1, "Trigger", "Triggers", "Chat invoke context"): the wire declaration, the
 * configuration variants (camelCase, as documents store them) and InvokeTrigger's request. The rules
 * live in libs/domain/src/triggers.
 */
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { MutatingRequest } from '../shared/requests';
import { RESOURCE_FILTERS, type ResourceApi } from '../shared/resource-api';

/** Configuration variant keys as stored and answered (requests may spell them snake_case). */
export const TRIGGER_VARIANTS = ['cron', 'manual', 'row', 'postDeploy', 'chatMessagePosted', 'chatAgentMentioned'] as const;
export type TriggerVariant = (typeof TRIGGER_VARIANTS)[number];

/** Variants InvokeTrigger's chat arm accepts. */
export const CHAT_VARIANTS: readonly TriggerVariant[] = ['chatMessagePosted', 'chatAgentMentioned'];

export interface CronConfiguration {
  /** A cron expression (5 fields, or 6 with seconds), parsed by cron-parser. */
  schedule: string;
  /** IANA time zone the schedule is read in (default `UTC`). */
  timezone: string;
}
export type ManualConfiguration = Record<string, never>;
export interface RowConfiguration {
  tableName: string;
  /** A boolean SQL-style expression over the row's columns (the WHERE clause of `SELECT * FROM t`). */
  predicate: string;
  /** Duration (`"300s"`): at most one session per this span. */
  cooldown: string;
}
export interface PostDeployConfiguration {
  /** `owner/repo` */
  repository: string;
  environment: string;
  sha: string;
  /** Duration (`"600s"`) between the deployment's success and the session. */
  delay: string;
}
export interface ChatMessagePostedConfiguration {
  /** `connections/{id}` of a CONNECTION_TYPE_CHAT connection. */
  chatConnection: string;
  /** `#name` channels; the bot must be a member of each. */
  channels: string[];
  /** Default true. */
  includeThreadReplies: boolean;
}
export interface ChatAgentMentionedConfiguration {
  /** `connections/{connection}/chat-handles/{handle}` */
  chatHandle: string;
  /** `#name` channels; empty means every channel the bot is in. */
  channels: string[];
}

/** Exactly one key is set. */
export interface TriggerConfiguration {
  cron?: CronConfiguration;
  manual?: ManualConfiguration;
  row?: RowConfiguration;
  postDeploy?: PostDeployConfiguration;
  chatMessagePosted?: ChatMessagePostedConfiguration;
  chatAgentMentioned?: ChatAgentMentionedConfiguration;
}

/** A trigger as the read model (`triggers` collection) and the API hold it. */
export interface TriggerDocument {
  name: string;
  displayName?: string;
  description?: string;
  agent: string;
  configuration: TriggerConfiguration;
  enabled?: boolean;
  /** Extension: resource names the trigger concerns (`services/x`), for `associated_resources:` filters. */
  associatedResources?: string[];
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}

/** Settable fields of a trigger (camelCase after wire conversion); the domain judges the contents. */
export class TriggerInput {
  @IsOptional() @IsString() displayName?: string;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsString() agent?: string;
  @IsOptional() @IsObject() configuration?: Record<string, unknown>;
  @IsOptional() @IsBoolean() enabled?: boolean;
  @IsOptional() @IsArray() @IsString({ each: true }) associatedResources?: string[];
}

/** Most characters of InvokeTrigger's message and of a chat context's text (ours; the spec gives none). */
export const MAX_INVOKE_MESSAGE = 100_000;
/** Most characters of an idempotency key (ours). */
export const MAX_IDEMPOTENCY_KEY = 256;

/** Chat invoke context (spec part 1): produced by the chat event dispatcher only. */
export class ChatInvokeContext {
  @IsOptional() @IsString() chatConnection?: string;
  @IsOptional() @IsString() teamId?: string;
  @IsOptional() @IsString() enterpriseId?: string;
  @IsOptional() @IsString() channelName?: string;
  @IsOptional() @IsString() threadTs?: string;
  @IsOptional() @IsString() eventTs?: string;
  @IsOptional() @IsString() userId?: string;
  @IsOptional() @IsString() @MaxLength(MAX_INVOKE_MESSAGE) text?: string;
  @IsOptional() @IsString() permalink?: string;
}

export class InvokeTriggerRequest extends MutatingRequest {
  @IsString() @IsNotEmpty() name!: string;
  @IsOptional() @IsString() @MaxLength(MAX_INVOKE_MESSAGE) message?: string;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => ChatInvokeContext) chat?: ChatInvokeContext;
  @IsOptional() @IsString() @MaxLength(MAX_IDEMPOTENCY_KEY) idempotencyKey?: string;
}

export const triggersApi: ResourceApi = {
  service: 'svc.triggers.v1.TriggersService',
  singular: 'trigger',
  plural: 'triggers',
  idField: 'triggerId',
  input: TriggerInput,
  methods: { create: 'CreateTrigger', get: 'GetTrigger', update: 'UpdateTrigger', delete: 'DeleteTrigger', list: 'ListTriggers' },
  filters: {
    ...RESOURCE_FILTERS,
    display_name: { type: 'string', path: 'displayName' },
    description: { type: 'string', path: 'description', indexed: false },
    agent: { type: 'string', path: 'agent' },
    enabled: { type: 'boolean', path: 'enabled' },
    associated_resources: { type: 'string[]', path: 'associatedResources' },
  },
  orderBy: { display_name: 'displayName', create_time: 'createTime', update_time: 'updateTime' },
  defaultOrder: 'create_time desc',
  permission: 'AGENTS_WRITE',
};

export const INVOKE_TRIGGER_METHOD = 'InvokeTrigger';
