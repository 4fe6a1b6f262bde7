/**
 * Deployment environments (spec part 2, "Deployment environment"): they come into being with the
 * first deployment whose `labels.environment` names them (projected from DeploymentCreated) and get a
 * stream of their own with their first UpdateDeploymentEnvironment (the kit's `implicit` resources).
 */
import { invalid } from '../shared/domain-error';
import type { Resource, ResourceSpec } from '../shared/resource';

/** Environment IDs come from a label value; this is what may become `deployment-environments/{id}`. */
export const ENVIRONMENT_ID = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,62}$/;
export const ENVIRONMENT_RULE =
  'an environment must start with a letter or digit and contain only letters, digits, dots, hyphens and underscores (at most 63 characters)';

/** Monitoring is opt-in: environments appear from any deployment, including short-lived ones. */
export const MONITORING_ENABLED_DEFAULT = false;

export const ENVIRONMENTS = 'deployment-environments';

/** The environment document a deployment brings into being, created at the deployment's time. */
export function environmentFromDeployment(environment: string, createTime: string): Resource {
  return { name: `${ENVIRONMENTS}/${environment}`, monitoringEnabled: MONITORING_ENABLED_DEFAULT, createTime, updateTime: createTime };
}

export const deploymentEnvironmentSpec: ResourceSpec = {
  kind: 'DeploymentEnvironment',
  collection: ENVIRONMENTS,
  idRequired: true,
  idPattern: ENVIRONMENT_ID,
  idRule: ENVIRONMENT_RULE,
  settable: ['monitoringEnabled', 'description'],
  undeletable: false,
  implicit: true,
  validate(environment: Resource) {
    // A mask naming monitoring_enabled with no value would clear it; the toggle is always on or off.
    if (typeof environment.monitoringEnabled !== 'boolean') {
      throw invalid(`monitoring_enabled of '${environment.name}' must be true or false`);
    }
  },
};
