/**
 * HandleTrackerEvent and CreateOrganizationInvitation of svc.connections.v1.IntegrationHelpersService:
 * the spec names the routes and not their bodies, so these shapes are ours (docs/decisions.md,
 * "Pager, tracker, incident manager and identity provider ports").
 */
// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';

/** A ticket as a tracker event names it. */
export class TrackerTicket {
  @IsString() id!: string;
  /** `#42` on GitHub Issues. */
  @IsString() key!: string;
  @IsString() url!: string;
  @IsString() title!: string;
  @IsString() state!: string;
}

/** A verified tracker delivery, parsed. */
export class TrackerEventSummary {
  /** The tracker's delivery ID (GitHub: X-GitHub-Delivery). */
  @IsString() delivery!: string;
  /** The tracker's event name (`issues`, `issue_comment`, `ping`). */
  @IsString() kind!: string;
  @IsString() action!: string;
  /** `owner/repo` on GitHub. */
  @IsString() project!: string;
  @IsOptional() @ValidateNested() @Type(() => TrackerTicket) ticket?: TrackerTicket;
  @IsString() actor!: string;
}

/** A tracker connection whose webhook secret verified the delivery. */
export class TrackerEventConnection {
  /** The organization ID. */
  @IsString() organization!: string;
  /** `connections/{id}` */
  @IsString() connection!: string;
  /** False when this connection had recorded the delivery before (the tracker retried, or it was replayed). */
  @IsBoolean() recorded!: boolean;
}

/** HandleTrackerEvent: the event, and every connection it was verified for. */
export class HandleTrackerEventResponse {
  @ValidateNested() @Type(() => TrackerEventSummary) event!: TrackerEventSummary;
  @IsArray() @ValidateNested({ each: true }) @Type(() => TrackerEventConnection) verifiedBy!: TrackerEventConnection[];
}

export class CreateOrganizationInvitationRequest {
  /** `connections/{id}` of an identity-provider connection of the caller's organization. */
  @IsString() @IsNotEmpty() @MaxLength(256) connectionName!: string;
  /** Who is invited. */
  @IsString() @IsNotEmpty() @MaxLength(320) email!: string;
  /** How long the invitation is valid, in seconds (1 to 2,592,000; the provider's default of 7 days when absent). */
  @IsOptional() @IsInt() @Min(1) @Max(2_592_000) ttlSeconds?: number;
}

export class OrganizationInvitation {
  /** The identity provider's ID of the invitation. */
  @IsString() id!: string;
  /** The link the invitee follows to sign up. */
  @IsString() invitationUrl!: string;
  @IsString() email!: string;
  /** The member who invited, `users/{id}`, or the service account. */
  @IsString() inviter!: string;
  @IsString() createTime!: string;
  @IsString() expireTime!: string;
}

export class CreateOrganizationInvitationResponse {
  @ValidateNested() @Type(() => OrganizationInvitation) invitation!: OrganizationInvitation;
}

export const TRACKER_DELIVERY_RECORDED = 'TrackerDeliveryRecorded';

/** A verified tracker delivery as one connection recorded it (no secret, no raw body). */
export interface TrackerDeliveryRecordedEvent {
  type: typeof TRACKER_DELIVERY_RECORDED;
  data: {
    connection: string;
    /** The tracker's delivery ID, or `sha256-<hex>` of the body when it sent none. */
    delivery: string;
    kind: string;
    action: string;
    project: string;
    ticket?: { id: string; key: string; url: string; title: string; state: string };
    actor: string;
    receiveTime: string;
  };
}

/** One stream per connection and delivery: recording it twice is the same delivery again. */
export function trackerDeliveryStreamId(org: string, connection: string, delivery: string): string {
  return `trackerdelivery-${org}:${connection}/deliveries/${delivery}`;
}
