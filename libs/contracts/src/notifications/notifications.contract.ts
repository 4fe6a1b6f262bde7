// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';

/** svc.notifications.v1.NotificationService (spec part 1, "Notification stream"). */
export const NOTIFICATION_SERVICE = 'svc.notifications.v1.NotificationService';

/** Topics are `/`-separated segments (`agents/a/sessions/s`); our choice, the spec does not show one. */
export const TOPIC_PATTERN = /^[^/\s]+(\/[^/\s]+)*$/;
export const MAX_TOPIC_LENGTH = 512;

/**
 * Subscribe: `organization_id` defaults to the caller's; `topic` (our addition: the spec does not
 * show how a subscriber selects one) narrows the stream to that topic and the topics under it.
 */
export class SubscribeRequest {
  @IsOptional() @IsString() organizationId?: string;
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TOPIC_LENGTH, { message: `topic must be at most ${MAX_TOPIC_LENGTH} characters` })
  @Matches(TOPIC_PATTERN, { message: 'topic must be segments separated by single slashes (agents/a/sessions/s)' })
  topic?: string;
}

/** A notification as published and delivered: `value` (an Any) and/or `payload`, on an optional topic. */
export class NotificationInput {
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TOPIC_LENGTH, { message: `topic must be at most ${MAX_TOPIC_LENGTH} characters` })
  @Matches(TOPIC_PATTERN, { message: 'topic must be segments separated by single slashes (agents/a/sessions/s)' })
  topic?: string;
  @IsOptional() @IsObject({ message: 'value must be an Any (an object with @type)' }) value?: Record<string, unknown>;
  @IsOptional() @IsString() payload?: string;
}

export class PublishRequest {
  @IsObject({ message: 'notification is required and must be an object' })
  @ValidateNested()
  @Type(() => NotificationInput)
  notification!: NotificationInput;
}
