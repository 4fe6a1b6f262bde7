import { IsOptional, IsString } from 'class-validator';
import { RESOURCE_FILTERS, type ResourceApi } from '../shared/resource-api';

export const KNOWN_ISSUE_STATUSES = ['KNOWN_ISSUE_STATUS_ACTIVE', 'KNOWN_ISSUE_STATUS_RESOLVED'] as const;

/** Settable fields of a known issue (spec part 2, "Known issue"); status values are checked by the domain. */
export class KnownIssueInput {
  @IsOptional() @IsString() title?: string;
  @IsOptional() @IsString() context?: string;
  @IsOptional() @IsString() humanDescription?: string;
  @IsOptional() @IsString() status?: string;
}

export const knownIssuesApi: ResourceApi = {
  service: 'svc.knownissues.v1.KnownIssuesService',
  singular: 'knownIssue',
  plural: 'knownIssues',
  idField: 'knownIssueId',
  input: KnownIssueInput,
  methods: {
    create: 'CreateKnownIssue',
    get: 'GetKnownIssue',
    update: 'UpdateKnownIssue',
    delete: 'DeleteKnownIssue',
    list: 'ListKnownIssues',
  },
  filters: {
    ...RESOURCE_FILTERS,
    title: { type: 'string', path: 'title' },
    status: { type: 'enum', path: 'status', values: KNOWN_ISSUE_STATUSES },
    context: { type: 'string', path: 'context', indexed: false },
    human_description: { type: 'string', path: 'humanDescription', indexed: false },
  },
  orderBy: { name: 'name', title: 'title', status: 'status', create_time: 'createTime', update_time: 'updateTime' },
  defaultOrder: 'create_time desc',
  permission: 'KNOWLEDGE_WRITE',
};
