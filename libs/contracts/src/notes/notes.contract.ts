import { IsObject, IsOptional, IsString } from 'class-validator';
import { RESOURCE_FILTERS, type ResourceApi } from '../shared/resource-api';

/** Settable fields of a note (spec part 2, "Note"). */
export class NoteInput {
  @IsOptional() @IsString() displayName?: string;
  @IsOptional() @IsString() notes?: string;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsString() toolName?: string;
  @IsOptional() @IsObject() toolArgs?: Record<string, unknown>;
}

export const notesApi: ResourceApi = {
  service: 'svc.notes.v1.NotesService',
  singular: 'note',
  plural: 'notes',
  idField: 'noteId',
  input: NoteInput,
  methods: { create: 'CreateNote', get: 'GetNote', update: 'UpdateNote', delete: 'DeleteNote', list: 'ListNotes' },
  filters: {
    ...RESOURCE_FILTERS,
    display_name: { type: 'string', path: 'displayName' },
    description: { type: 'string', path: 'description', indexed: false },
    tool_name: { type: 'string', path: 'toolName' },
    notes: { type: 'string', path: 'notes', indexed: false },
  },
  orderBy: {
    name: 'name',
    display_name: 'displayName',
    tool_name: 'toolName',
    create_time: 'createTime',
    update_time: 'updateTime',
  },
  defaultOrder: 'create_time desc',
  permission: 'KNOWLEDGE_WRITE',
};
