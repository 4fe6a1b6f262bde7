import { IsOptional, IsString } from 'class-validator';
import { RESOURCE_FILTERS, type ResourceApi } from '../shared/resource-api';

/** Settable fields of a tag (spec part 3, "Tag"); `system` is output only. */
export class TagInput {
  @IsOptional() @IsString() displayName?: string;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsString() color?: string;
}

export const tagsApi: ResourceApi = {
  service: 'svc.tags.v1.TagsService',
  singular: 'tag',
  plural: 'tags',
  idField: 'tagId',
  input: TagInput,
  methods: { create: 'CreateTag', get: 'GetTag', update: 'UpdateTag', delete: 'DeleteTag', list: 'ListTags' },
  filters: {
    ...RESOURCE_FILTERS,
    display_name: { type: 'string', path: 'displayName' },
    description: { type: 'string', path: 'description', indexed: false },
    color: { type: 'string', path: 'color' },
    system: { type: 'boolean', path: 'system' },
  },
  orderBy: {
    name: 'name',
    display_name: 'displayName',
    create_time: 'createTime',
    update_time: 'updateTime',
  },
  // A label picker reads tags alphabetically by ID; the spec names no default.
  defaultOrder: 'name',
  permission: 'AGENTS_WRITE',
  outputOnly: ['system'],
};
