/**
 * The change-monitor notifications service (spec part 2: GetMyChangeMonitorSetup,
 * UpdateMyChangeMonitorNotificationPreference, VerifyMyChangeMonitorSlackDM; paths and shapes not
 * shown, ours in docs/decisions.md, "Change-monitor notifications"). Served on the RPC paths
 * `POST /svc.monitoring_plans.v1.ChangeMonitorNotificationsService/<Method>`; each acts on the
 * caller's own setup, so membership is all it needs.
 */
// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { IsBoolean, IsEmail, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { CHANGE_MONITOR_SERVICE } from '../catalog';
import { MutatingRequest } from '../shared/requests';
import type { ResourceApi } from '../shared/resource-api';
import { IsResource } from '../shared/responses';

/** Fields of a setup (all output only: the service's methods write them). */
export class ChangeMonitorSetupInput {}

export const changeMonitorSetupsApi: ResourceApi = {
  service: CHANGE_MONITOR_SERVICE,
  singular: 'changeMonitorSetup',
  plural: 'changeMonitorSetups',
  idField: 'changeMonitorSetupId',
  input: ChangeMonitorSetupInput,
  // No kit methods: the three methods of the service act on the caller's own setup (apps/api/src/changemonitor).
  methods: {},
  filters: {},
  orderBy: {},
  defaultOrder: 'name',
  outputOnly: ['user', 'chatDmEnabled', 'codehostLogin', 'verifiedChatDestination'],
};

export class GetMyChangeMonitorSetupRequest {}

export class UpdateMyChangeMonitorNotificationPreferenceRequest extends MutatingRequest {
  /** Send plan updates to my chat DM too (needs a verified destination). */
  @IsBoolean({ message: 'chat_dm_enabled is required and must be a boolean' }) chatDmEnabled!: boolean;
  /** My code-host login, which pull requests name their author by; empty leaves it unchanged. */
  @IsOptional() @IsString() @MaxLength(39) @Matches(/^([A-Za-z0-9][A-Za-z0-9-]{0,38})?$/, { message: 'codehost_login must be a code-host login' }) codehostLogin?: string;
}

export class VerifyMyChangeMonitorSlackDMRequest extends MutatingRequest {
  /** `connections/{id}` of the chat connection to reach me through. */
  @IsString() @IsNotEmpty() @MaxLength(256) chatConnection!: string;
  /** My chat user ID; or `email` to look me up by; or neither to use the one verified before. */
  @IsOptional() @IsString() @Matches(/^[A-Z0-9]{1,32}$/, { message: 'chat_user_id must be a chat platform user id such as U0123ABCD' }) chatUserId?: string;
  @IsOptional() @IsEmail({}, { message: 'email must be an e-mail address' }) @MaxLength(254) email?: string;
}

const setupShape = () => changeMonitorSetupsApi;

export class ChangeMonitorSetupResponse {
  @IsResource(setupShape) changeMonitorSetup!: Record<string, unknown>;
}

export class VerifyMyChangeMonitorSlackDMResponse {
  @IsResource(setupShape) changeMonitorSetup!: Record<string, unknown>;
  /** The test DM's message ts. */
  @IsString() messageTs!: string;
}
