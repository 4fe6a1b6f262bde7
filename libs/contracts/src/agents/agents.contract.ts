import { ArrayMaxSize, IsArray, IsOptional, IsString } from 'class-validator';
import { ConnectionBindings, type ConnectionBindingInput } from '../shared/connection-binding';
import { RESOURCE_FILTERS, type ResourceApi } from '../shared/resource-api';

export const AGENT_STATES = ['AGENT_STATE_ON', 'AGENT_STATE_OFF'] as const;

/** Most tags one agent may carry (ours; the spec gives no limit). */
export const MAX_AGENT_TAGS = 100;

/** Settable fields of an agent (spec part 2, "Agent"); createdBy is output only. */
export class AgentInput {
  @IsOptional() @IsString() title?: string;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsString() prompt?: string;
  @ConnectionBindings() connections?: ConnectionBindingInput[];
  @IsOptional() @IsString() state?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(MAX_AGENT_TAGS) @IsString({ each: true }) tags?: string[];
  /** Extension (docs/decisions.md, "Sessions"): the entry task's inputs, [{name, type, repeated, required}]; checked by the domain. */
  @IsOptional() @IsArray() entryInputs?: Record<string, unknown>[];
}

export const agentsApi: ResourceApi = {
  service: 'svc.nxagent.v2.AgentService',
  singular: 'agent',
  plural: 'agents',
  idField: 'agentId',
  input: AgentInput,
  methods: {
    create: 'CreateAgent',
    get: 'GetAgent',
    update: 'UpdateAgent',
    delete: 'DeleteAgent',
    list: 'ListAgents',
    undelete: 'UndeleteAgent',
  },
  filters: {
    ...RESOURCE_FILTERS,
    title: { type: 'string', path: 'title' },
    description: { type: 'string', path: 'description', indexed: false },
    state: { type: 'enum', path: 'state', values: AGENT_STATES },
    tags: { type: 'string[]', path: 'tags' },
    created_by: { type: 'string', path: 'createdBy' },
  },
  // Spec: ListAgents orders by create_time or update_time only.
  orderBy: { create_time: 'createTime', update_time: 'updateTime' },
  nameSortable: false,
  defaultOrder: 'create_time desc',
  permission: 'AGENTS_WRITE',
  // Spec: `agent` is optional on CreateAgent; UpdateAgent needs a mask and never replaces the whole agent.
  optionalOnCreate: true,
  maskRequired: true,
  outputOnly: ['createdBy'],
};
