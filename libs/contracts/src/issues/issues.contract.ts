/**
 * Issues (spec part 3, "Issue"): read-only through the API, created by agent sessions that conclude
 * with proposed issues (libs/application/src/areas/issues/issues.reactor.ts). ValidateIssueEvidence judges
 * proposed issues against evidence and changes nothing.
 */
// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { RESOURCE_FILTERS, type ResourceApi } from '../shared/resource-api';
import { EVIDENCE_DECISIONS, ISSUE_WORKFLOW_STATES, MAX_EVIDENCE_CONTEXT, MAX_PROPOSED_ISSUES, MAX_PROPOSED_TEXT, MAX_PROPOSED_TITLE } from './issue-enums';

export * from './issue-enums';

/** No field is settable through the API: issues come from concluding sessions. */
export class IssueInput {}

export const issuesApi: ResourceApi = {
  service: 'svc.issues.v1.IssuesService',
  singular: 'issue',
  plural: 'issues',
  idField: 'issueId',
  input: IssueInput,
  methods: { get: 'GetIssue', list: 'ListIssues' },
  filters: {
    ...RESOURCE_FILTERS,
    display_name: { type: 'string', path: 'displayName' },
    description: { type: 'string', path: 'description', indexed: false },
    source: { type: 'string', path: 'source' },
    session: { type: 'string', path: 'session' },
    deployment_environments: { type: 'string[]', path: 'deploymentEnvironments' },
    workflow_state: { type: 'enum', path: 'workflowState', values: ISSUE_WORKFLOW_STATES },
    services: { type: 'string[]', path: 'services' },
    objectives: { type: 'string[]', path: 'objectives' },
    assignee: { type: 'string', path: 'assignee' },
    // Extension: pull requests linked as fixes (monitoring plans, RecordPullRequestFixLink/Updated).
    pull_requests: { type: 'string[]', path: 'pullRequests' },
  },
  orderBy: { create_time: 'createTime', update_time: 'updateTime', display_name: 'displayName' },
  defaultOrder: 'create_time desc',
};

/** A proposed issue (validation input): unsaved, no name needed. */
export class ProposedIssueInput {
  @IsString() @IsNotEmpty({ message: 'issues[].title is required' }) @MaxLength(MAX_PROPOSED_TITLE) title!: string;
  @IsOptional() @IsString() @MaxLength(MAX_PROPOSED_TEXT) description?: string;
  @IsOptional() @IsString() @MaxLength(MAX_PROPOSED_TEXT) details?: string;
}

export class ValidateIssueEvidenceRequest {
  @IsArray({ message: 'issues is required: 1 to 10 proposed issues' })
  @ArrayMinSize(1, { message: `issues must hold 1 to ${MAX_PROPOSED_ISSUES} proposed issues` })
  @ArrayMaxSize(MAX_PROPOSED_ISSUES, { message: `issues must hold 1 to ${MAX_PROPOSED_ISSUES} proposed issues` })
  @IsObject({ each: true, message: 'each of issues must be an object' })
  @ValidateNested({ each: true })
  @Type(() => ProposedIssueInput)
  issues!: ProposedIssueInput[];
  @IsString({ message: 'evidence_context is required' })
  @IsNotEmpty({ message: 'evidence_context is required' })
  @MaxLength(MAX_EVIDENCE_CONTEXT, { message: `evidence_context is longer than ${MAX_EVIDENCE_CONTEXT} characters` })
  evidenceContext!: string;
  @IsOptional() @IsString() sourceSession?: string;
}

/** What the validator found of one proposed issue (by its index in the request). */
export class EvidenceFindingResult {
  @IsInt() issueIndex!: number;
  @IsString() title!: string;
  @IsBoolean() supported!: boolean;
  @IsString() reason!: string;
}

/** ValidateIssueEvidence: advisory; SKIPPED (and passes) when no validator is configured. */
export class ValidateIssueEvidenceResponse {
  @IsIn(Object.values(EVIDENCE_DECISIONS)) decision!: (typeof EVIDENCE_DECISIONS)[keyof typeof EVIDENCE_DECISIONS];
  @IsBoolean() passes!: boolean;
  @IsString() feedback!: string;
  @ValidateNested({ each: true }) @Type(() => EvidenceFindingResult) findings!: EvidenceFindingResult[];
  @IsString() validatorVersion!: string;
}
