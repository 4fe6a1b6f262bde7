/**
 * Triggers (spec part 1, "Trigger", "Triggers", "Chat invoke context"): the wire declaration, the
 * configuration variants (camelCase, as documents store them) and InvokeTrigger's request. The rules
 * live in libs/domain/src/triggers.
 */
// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { MutatingRequest } from '../shared/requests';
import { RESOURCE_FILTERS, type ResourceApi } from '../shared/resource-api';
import { IsResource } from '../shared/responses';

export * from './trigger-configuration';

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

/** InvokeTrigger: the trigger invoked and the session it started (or the recent one it reused). */
export class InvokeTriggerResponse {
  @IsResource(() => triggersApi) trigger!: Record<string, unknown>;
  @IsString() session!: string;
}
