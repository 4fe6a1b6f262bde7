/**
 * Monitoring plans (spec part 2, "Monitoring plan" and "Monitoring plans"): Get and List are the
 * resource kit's over the plans' read model; the other methods are the area's own
 * (apps/api/src/monitoringplans). Every write needs CHANGE_MONITOR_WRITE.
 */
// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { Int64, MutatingRequest } from '../shared/requests';
import { MONITORING_RUN_SERVICE } from '../catalog';
import { RESOURCE_FILTERS, type ChangelogApi, type ResourceApi } from '../shared/resource-api';
import { IsResource } from '../shared/responses';

export const MONITORING_PLAN_SERVICE = 'svc.monitoring_plans.v1.MonitoringPlanService';
export const MONITORING_OUTCOMES = ['MONITORING_OUTCOME_NO_ISSUE'] as const;
/** Ours: a run is running until its monitored deployment has an outcome (nothing sets one yet). */
export const MONITORING_RUN_STATES = ['MONITORING_RUN_STATE_RUNNING', 'MONITORING_RUN_STATE_COMPLETED'] as const;

/** Nothing is settable: plans come from pull requests (RecordPullRequestUpdated, RecordPullRequestFixLink). */
export class MonitoringPlanInput {}

export const monitoringPlansApi: ResourceApi = {
  service: MONITORING_PLAN_SERVICE,
  singular: 'monitoringPlan',
  plural: 'monitoringPlans',
  idField: 'planId',
  input: MonitoringPlanInput,
  methods: { get: 'GetMonitoringPlan', list: 'ListMonitoringPlans' },
  filters: {
    ...RESOURCE_FILTERS,
    'origin.repository': { type: 'string', path: 'origin.repository' },
    'origin.pr_number': { type: 'number', path: 'origin.prNumber' },
    'origin.pr_url': { type: 'string', path: 'origin.prUrl' },
    'origin.pr_author_codehost_login': { type: 'string', path: 'origin.prAuthorCodehostLogin' },
    'activation.merge_sha': { type: 'string', path: 'activation.mergeSha' },
    'activation.environments': { type: 'string[]', path: 'activation.environments' },
    related_resources: { type: 'string[]', path: 'relatedResources' },
    notification_channel: { type: 'string', path: 'notificationChannel' },
    last_check_time: { type: 'timestamp', path: 'lastCheckTime' },
  },
  orderBy: { create_time: 'createTime', update_time: 'updateTime', last_check_time: 'lastCheckTime' },
  defaultOrder: 'create_time desc',
  permission: 'CHANGE_MONITOR_WRITE',
  outputOnly: [
    'origin',
    'activation',
    'planContent',
    'planSummary',
    'intendedEffects',
    'risks',
    'notificationChannel',
    'authorSession',
    'deployments',
    'lastCheckTime',
    'relatedResources',
  ],
  // Spec: "The list form omits planContent, activation and deployments".
  listFields: ['name', 'origin', 'planSummary', 'intendedEffects', 'risks', 'notificationChannel', 'authorSession', 'lastCheckTime', 'relatedResources', 'createTime', 'updateTime'],
};

/** Longest Markdown comment (GitHub's own limit on a comment body). */
export const MAX_COMMENT_BODY = 65_536;
/** Longest pull request body and title read from a request (GitHub's body limit; titles are far shorter). */
export const MAX_PR_BODY = 65_536;
export const MAX_PR_TITLE = 1024;

/** `POST /v1/monitoring-plans/{plan_id}:postComment` binds `plan_id`; the RPC form names the plan. */
export class PostPlanCommentRequest extends MutatingRequest {
  @IsOptional() @IsString() @MaxLength(300) name?: string;
  @IsOptional() @IsString() @MaxLength(200) planId?: string;
  @IsString({ message: 'comment_body is required' })
  @IsNotEmpty({ message: 'comment_body is required' })
  @MaxLength(MAX_COMMENT_BODY, { message: `comment_body is longer than ${MAX_COMMENT_BODY} characters` })
  commentBody!: string;
}

export class PostInProgressCommentRequest extends MutatingRequest {
  @IsOptional() @IsString() @MaxLength(300) name?: string;
  @IsOptional() @IsString() @MaxLength(200) planId?: string;
}

/** commentUrl is empty when posting is unavailable (rule 2: nothing is recorded then). */
export class PostCommentResponse {
  @IsString() commentUrl!: string;
}

export class ActivateFromDeploymentRequest extends MutatingRequest {
  @IsString() @IsNotEmpty({ message: 'repository is required' }) @MaxLength(201) repository!: string;
  @IsString() @IsNotEmpty({ message: 'environment is required' }) @MaxLength(300) environment!: string;
  @IsString() @IsNotEmpty({ message: 'deployed_sha is required' }) @MaxLength(255) deployedSha!: string;
  @IsOptional() @IsString() @MaxLength(255) baseSha?: string;
  @Int64() installationId?: number;
  @Int64() codehostDeploymentId?: number;
  @IsOptional() @IsString() @MaxLength(300) deploymentName?: string;
}

export class ActivatePlanFromDeploymentsRequest extends MutatingRequest {
  @IsString() @IsNotEmpty() @MaxLength(300) name!: string;
}

export class PlanActivation {
  @IsOptional() @IsString() mergeSha?: string;
  @IsArray() @IsString({ each: true }) environments!: string[];
}

export class ActivatedPlan {
  @IsString() name!: string;
  @IsObject() @ValidateNested() @Type(() => PlanActivation) activation!: PlanActivation;
}

export class ActivatePlansResponse {
  @IsArray() @ValidateNested({ each: true }) @Type(() => ActivatedPlan) activatedPlans!: ActivatedPlan[];
}

export class RecordPullRequestFixLinkRequest extends MutatingRequest {
  @IsString() @IsNotEmpty({ message: 'pr_url is required' }) @MaxLength(2048) prUrl!: string;
  @IsString() @IsNotEmpty({ message: 'issue_name is required' }) @MaxLength(300) issueName!: string;
  @Int64() installationId?: number;
}

export class RecordPullRequestUpdatedRequest extends MutatingRequest {
  @IsString() @IsNotEmpty({ message: 'pr_url is required' }) @MaxLength(2048) prUrl!: string;
  @IsOptional() @IsString() @MaxLength(MAX_PR_TITLE, { message: `title is longer than ${MAX_PR_TITLE} characters` }) title?: string;
  @IsOptional() @IsString() @MaxLength(MAX_PR_BODY, { message: `body is longer than ${MAX_PR_BODY} characters` }) body?: string;
  @Int64() installationId?: number;
}

/** RecordPullRequestFixLink (spec) and RecordPullRequestUpdated (fields past monitoringPlan are ours). */
export class PullRequestLinkResponse {
  @IsResource(() => monitoringPlansApi) monitoringPlan!: object;
  @IsArray() @IsString({ each: true }) linkedIssues!: string[];
  @IsArray() @IsString({ each: true }) promotedIssues!: string[];
}

export class RecordPullRequestUpdatedResponse extends PullRequestLinkResponse {
  /** Closing references to issues this organization does not have: not linked. */
  @IsArray() @IsString({ each: true }) ignoredReferences!: string[];
}

/**
 * The legacy MonitoringRunService (spec part 2: names only; paths and shapes are ours): one run per
 * monitored-deployment entry of a plan, `monitoring-plans/{plan}/runs/{environment id}`, projected
 * from the plan's own events (docs/decisions.md, "Monitoring plans"). Read-only; RPC routes.
 */
export const monitoringRunsApi: ChangelogApi = {
  service: MONITORING_RUN_SERVICE,
  methods: { list: 'ListMonitoringRuns', get: 'GetMonitoringRun' },
  singular: 'monitoringRun',
  plural: 'monitoringRuns',
  store: 'monitoring-runs',
  segment: 'runs',
  parentPath: 'plan',
  filters: {
    environment: { type: 'string', path: 'environment' },
    deployment: { type: 'string', path: 'deployment' },
    state: { type: 'enum', path: 'state', values: MONITORING_RUN_STATES },
    outcome: { type: 'enum', path: 'outcome', values: MONITORING_OUTCOMES },
    start_time: { type: 'timestamp', path: 'startTime' },
    create_time: { type: 'timestamp', path: 'createTime' },
  },
  orderBy: { start_time: 'startTime', create_time: 'createTime' },
  defaultOrder: 'start_time desc',
};
