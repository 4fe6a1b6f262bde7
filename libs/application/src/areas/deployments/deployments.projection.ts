/**
 * Deployments, their status-event changelog and their environments, as one projection (one
 * checkpoint), so a deployment write that waits for it can read all three. The changelog and the
 * environments are views of the deployment streams: nothing writes them separately.
 */
import { deploymentEnvironmentsApi, deploymentsApi, statusEventsApi } from '@svc/contracts/deployments/deployments.contract';
import {
  deploymentEnvironmentSpec,
  environmentFromDeployment,
  ENVIRONMENTS,
} from '@svc/domain/deployments/deployment-environment.resource';
import { deploymentSpec, environmentOf, STATUS_CHANGED, type StatusEventPayload } from '@svc/domain/deployments/deployment.resource';
import type { PatchData, Resource } from '@svc/domain/shared/resource';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { combineProjections } from '@svc/infrastructure/projection/combine';
import { docId, type ProjectedEvent, type Projection } from '@svc/infrastructure/projection/projection';
import { changelogIndexes, resourceProjection } from '@svc/infrastructure/projection/resource.projection';
import type { WriteOp } from '@svc/infrastructure/read-store/read-store.port';

const DEPLOYMENT_STREAMS = resourceStreamId(deploymentSpec, '', '').slice(0, -1);
const CREATED = `${deploymentSpec.kind}Created`;
const STATUS_EVENTS = statusEventsApi.store;

/**
 * `deployments/{id}/status-events/{n}`: n is the event's stream revision + 1, so the creation (the
 * initial PENDING) is 1 and every status change the next number; stable across rebuilds.
 */
function statusEvent(e: ProjectedEvent, fields: StatusEventPayload, createTime: string): WriteOp {
  const deployment = e.resourceName;
  const name = `${deployment}/status-events/${Number(e.record.revision) + 1}`;
  return { op: 'insert', collection: STATUS_EVENTS, doc: { _id: docId(e.org, name), _org: e.org, name, deployment, ...fields, createTime } };
}

const statusEvents: Projection = {
  name: STATUS_EVENTS,
  version: 1,
  collections: [STATUS_EVENTS],
  indexes: changelogIndexes(statusEventsApi),
  handle(e) {
    if (!e.record.streamId.startsWith(DEPLOYMENT_STREAMS)) return [];
    if (e.event.type === CREATED) {
      const deployment = e.event.data.resource as Resource;
      const createTime = deployment.createTime as string;
      return [statusEvent(e, { status: deployment.status as StatusEventPayload['status'], eventTime: createTime }, createTime)];
    }
    if (e.event.type === STATUS_CHANGED) {
      const data = e.event.data as unknown as PatchData & { statusEvent: StatusEventPayload };
      return [statusEvent(e, data.statusEvent, data.updateTime)];
    }
    return [];
  },
};

/** The first deployment naming an environment brings it into being; later ones leave it as it is. */
const environmentsFromDeployments: Projection = {
  name: ENVIRONMENTS,
  version: 1,
  collections: [ENVIRONMENTS],
  indexes: {},
  handle(e) {
    if (!e.record.streamId.startsWith(DEPLOYMENT_STREAMS) || e.event.type !== CREATED) return [];
    const deployment = e.event.data.resource as Resource;
    const environment = environmentOf(deployment);
    if (environment === undefined) return [];
    const doc = environmentFromDeployment(environment, deployment.createTime as string);
    return [
      {
        op: 'update',
        collection: ENVIRONMENTS,
        id: docId(e.org, doc.name),
        pos: e.pos,
        update: { $setOnInsert: { ...doc, _org: e.org } },
        upsert: true,
      },
    ];
  },
};

export const deploymentsProjection = combineProjections('deployments', 1, [
  resourceProjection(deploymentSpec, deploymentsApi),
  statusEvents,
  environmentsFromDeployments,
  resourceProjection(deploymentEnvironmentSpec, deploymentEnvironmentsApi),
]);
