// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsIn, IsNotEmpty, IsObject, IsOptional, IsRFC3339, IsString, ValidateNested } from 'class-validator';
import { RESOURCE_FILTERS, type ResourceApi } from '../shared/resource-api';
import { Int64, MutatingRequest } from '../shared/requests';
import { EVALUATION_STATUSES } from './enums';

const SERVICE = 'svc.deploy_monitor.v1.DeploymentMonitorEvaluationService';

/** Fields of an evaluation its recorder sets (spec part 2, "Deployment monitor evaluation"). */
export class DeploymentMonitorEvaluationInput {
  @IsOptional() @IsString() sessionName?: string;
  @IsOptional() @IsIn(EVALUATION_STATUSES, { message: `status must be one of ${EVALUATION_STATUSES.join(', ')}` }) status?: string;
  @IsOptional() @IsString() codehostRunId?: string;
  @IsOptional() @IsString() environment?: string;
  @IsOptional() @IsString() repository?: string;
  @IsOptional() @IsString() headSha?: string;
  @IsOptional() @IsString() baseSha?: string;
  @Int64() prNumber?: number;
  @IsOptional() @IsRFC3339({ message: "deployment_time must be an RFC 3339 timestamp such as '2024-01-31T12:00:00Z'" }) deploymentTime?: string;
  @IsOptional() @IsString() summary?: string;
  @IsOptional() @IsString() overallStatus?: string;
}

export const evaluationsApi: ResourceApi = {
  service: SERVICE,
  singular: 'evaluation',
  plural: 'evaluations',
  idField: 'deploymentMonitorEvaluationId',
  input: DeploymentMonitorEvaluationInput,
  methods: { get: 'GetDeploymentMonitorEvaluation', list: 'ListDeploymentMonitorEvaluations' },
  filters: {
    ...RESOURCE_FILTERS,
    environment: { type: 'string', path: 'environment' },
    repository: { type: 'string', path: 'repository' },
    status: { type: 'enum', path: 'status', values: EVALUATION_STATUSES },
    overall_status: { type: 'string', path: 'overallStatus' },
    head_sha: { type: 'string', path: 'headSha' },
    session_name: { type: 'string', path: 'sessionName' },
    deployment_time: { type: 'timestamp', path: 'deploymentTime' },
  },
  orderBy: { create_time: 'createTime', update_time: 'updateTime', deployment_time: 'deploymentTime' },
  defaultOrder: 'create_time desc',
  // The only write is the runtime's record command; the agent runtime's identity holds AGENTS_WRITE.
  permission: 'AGENTS_WRITE',
  // The spec's list form: name, times, status, environment, repository, headSha, overallStatus.
  listFields: ['name', 'createTime', 'updateTime', 'deleteTime', 'status', 'environment', 'repository', 'headSha', 'overallStatus'],
};

/** Extension (docs/decisions.md): records an evaluation, or the progress of one already recorded. */
export class RecordDeploymentMonitorEvaluationRequest extends MutatingRequest {
  @IsString() @IsNotEmpty() deploymentMonitorEvaluationId!: string;
  @IsObject({ message: 'deployment_monitor_evaluation is required and must be an object' })
  @ValidateNested()
  @Type(() => DeploymentMonitorEvaluationInput)
  deploymentMonitorEvaluation!: DeploymentMonitorEvaluationInput;
}
export const RECORD_EVALUATION = 'RecordDeploymentMonitorEvaluation';
