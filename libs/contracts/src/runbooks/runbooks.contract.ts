import { IsOptional, IsString } from 'class-validator';
import { ConnectionBindings, type ConnectionBindingInput } from '../shared/connection-binding';
import { RESOURCE_FILTERS, type ResourceApi } from '../shared/resource-api';

/** Settable fields of a runbook (spec part 2, "Runbook"). */
export class RunbookInput {
  @IsOptional() @IsString() displayName?: string;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsString() text?: string;
  @ConnectionBindings() connections?: ConnectionBindingInput[];
}

export const runbooksApi: ResourceApi = {
  service: 'svc.runbooks.v1.RunbooksService',
  singular: 'runbook',
  plural: 'runbooks',
  idField: 'runbookId',
  input: RunbookInput,
  methods: { create: 'CreateRunbook', get: 'GetRunbook', update: 'UpdateRunbook', delete: 'DeleteRunbook', list: 'ListRunbooks' },
  filters: {
    ...RESOURCE_FILTERS,
    display_name: { type: 'string', path: 'displayName' },
    description: { type: 'string', path: 'description', indexed: false },
    text: { type: 'string', path: 'text', indexed: false },
  },
  orderBy: { name: 'name', display_name: 'displayName', create_time: 'createTime', update_time: 'updateTime' },
  defaultOrder: 'create_time desc',
  permission: 'KNOWLEDGE_WRITE',
};
