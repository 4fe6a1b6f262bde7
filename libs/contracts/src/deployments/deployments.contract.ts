import { IsBoolean, IsIn, IsNotEmpty, IsObject, IsOptional, IsString } from 'class-validator';
import { RESOURCE_FILTERS, type ChangelogApi, type ResourceApi } from '../shared/resource-api';
import { MutatingRequest } from '../shared/requests';
import { DEPLOYMENT_SOURCES, DEPLOYMENT_STATUSES } from './enums';

const SERVICE = 'svc.deployments.v1.DeploymentsService';

/** Settable fields of a deployment on create (spec part 2, "Deployment"); status is the server's. */
export class DeploymentInput {
  @IsOptional() @IsIn(DEPLOYMENT_SOURCES) source?: string;
  /** Map of string to string; keys and values are checked by the domain rule. */
  @IsOptional() @IsObject() labels?: Record<string, string>;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsString() externalId?: string;
  @IsOptional() @IsString() externalUrl?: string;
}

export const deploymentsApi: ResourceApi = {
  service: SERVICE,
  singular: 'deployment',
  plural: 'deployments',
  idField: 'deploymentId',
  input: DeploymentInput,
  // No update or delete in the spec: a deployment changes only through UpdateDeploymentStatus.
  methods: { create: 'CreateDeployment', get: 'GetDeployment', list: 'ListDeployments' },
  filters: {
    ...RESOURCE_FILTERS,
    labels: { type: 'map', path: 'labels' },
    status: { type: 'enum', path: 'status', values: DEPLOYMENT_STATUSES },
    source: { type: 'enum', path: 'source', values: DEPLOYMENT_SOURCES },
    description: { type: 'string', path: 'description', indexed: false },
    external_id: { type: 'string', path: 'externalId' },
    start_time: { type: 'timestamp', path: 'startTime' },
    complete_time: { type: 'timestamp', path: 'completeTime' },
  },
  orderBy: { create_time: 'createTime', update_time: 'updateTime', start_time: 'startTime', complete_time: 'completeTime' },
  defaultOrder: 'create_time desc',
  permission: 'CHANGE_MONITOR_WRITE',
  // Label keys are user data: `labels.environment`, `labels.my_key` stay as written.
  preserveKeysUnder: ['deployment.labels'],
};

/** Extension (docs/decisions.md): the command that moves a deployment between statuses. */
export class UpdateDeploymentStatusRequest extends MutatingRequest {
  @IsString() @IsNotEmpty() name!: string;
  @IsIn(DEPLOYMENT_STATUSES, { message: `status must be one of ${DEPLOYMENT_STATUSES.join(', ')}` }) status!: string;
  @IsOptional() @IsString() description?: string;
  /** RFC 3339; when the source system saw the change. Defaults to the time of the request. */
  @IsOptional() @IsString() eventTime?: string;
}
export const UPDATE_DEPLOYMENT_STATUS = 'UpdateDeploymentStatus';

/** ListDeploymentStatusEvents: the changelog of one deployment. */
export const statusEventsApi: ChangelogApi = {
  service: SERVICE,
  methods: { list: 'ListDeploymentStatusEvents' },
  singular: 'statusEvent',
  plural: 'statusEvents',
  store: 'deployment-status-events',
  segment: 'status-events',
  parentPath: 'deployment',
  filters: {
    status: { type: 'enum', path: 'status', values: DEPLOYMENT_STATUSES },
    description: { type: 'string', path: 'description', indexed: false },
    event_time: { type: 'timestamp', path: 'eventTime' },
    create_time: { type: 'timestamp', path: 'createTime' },
  },
  orderBy: { event_time: 'eventTime', create_time: 'createTime' },
  // Newest first, as the spec's example; events sharing an event_time keep their recording order.
  defaultOrder: 'event_time desc, create_time desc',
};

/** Settable fields of a deployment environment (spec part 2, "Deployment environment"). */
export class DeploymentEnvironmentInput {
  @IsOptional() @IsBoolean() monitoringEnabled?: boolean;
  @IsOptional() @IsString() description?: string;
}

export const deploymentEnvironmentsApi: ResourceApi = {
  service: SERVICE,
  singular: 'deploymentEnvironment',
  plural: 'deploymentEnvironments',
  idField: 'deploymentEnvironmentId',
  input: DeploymentEnvironmentInput,
  // Environments come into being with the first deployment naming them: no create, no delete.
  methods: { get: 'GetDeploymentEnvironment', list: 'ListDeploymentEnvironments', update: 'UpdateDeploymentEnvironment' },
  filters: {
    ...RESOURCE_FILTERS,
    monitoring_enabled: { type: 'boolean', path: 'monitoringEnabled' },
    description: { type: 'string', path: 'description', indexed: false },
  },
  orderBy: { name: 'name', create_time: 'createTime', update_time: 'updateTime' },
  defaultOrder: 'create_time asc',
  permission: 'CHANGE_MONITOR_WRITE',
  defaultMask: ['monitoringEnabled'],
};
