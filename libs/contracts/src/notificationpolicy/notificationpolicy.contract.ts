import { ArrayMaxSize, IsArray, IsOptional, IsString } from 'class-validator';
import type { ResourceApi } from '../shared/resource-api';

/** Settable fields of the issue notification policy (spec part 3); `state` is output only. */
export class IssueNotificationPolicyInput {
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) connections?: string[];
  @IsOptional() @IsString() prompt?: string;
}

/** The singleton every organization holds; Get with an empty body answers it. */
export const ISSUE_NOTIFICATION_POLICY = 'issue-notification-policies/default';

export const issueNotificationPolicyApi: ResourceApi = {
  service: 'svc.issuenotificationpolicy.v1.IssueNotificationPolicyService',
  singular: 'issueNotificationPolicy',
  plural: 'issueNotificationPolicies',
  idField: 'issueNotificationPolicyId',
  input: IssueNotificationPolicyInput,
  methods: { get: 'GetIssueNotificationPolicy', update: 'UpdateIssueNotificationPolicy' },
  singleton: ISSUE_NOTIFICATION_POLICY,
  // No List method: nothing to filter or order.
  filters: {},
  orderBy: {},
  defaultOrder: 'name',
  permission: 'KNOWLEDGE_WRITE',
  outputOnly: ['state'],
};
