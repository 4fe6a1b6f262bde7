/**
 * Triggers (spec part 1, "Trigger"): an agent, a configuration of exactly one variant, and an
 * enabled flag. The kit serves CRUD; InvokeTrigger (apps/api/src/triggers) starts sessions, and the
 * reactors (libs/application/src/areas/triggers) fire cron, post-deploy and row triggers.
 */
import { invalid } from '../shared/domain-error';
import { commonId, type ResourceSpec } from '../shared/resource';
import { checkConfiguration, configurationReferences, withConfigurationDefaults } from './configuration';

const AGENT_NAME = /^agents\/[^/]+$/;
const RESOURCE_NAME = /^[a-z][a-zA-Z0-9-]*\/[^/]+(\/[^/]+)*$/;
/** Most associated resources one trigger may list (ours). */
export const MAX_ASSOCIATED_RESOURCES = 100;

export const triggerSpec: ResourceSpec = {
  kind: 'Trigger',
  collection: 'triggers',
  // Spec: trigger_id optional, generated when omitted.
  idRequired: false,
  ...commonId('trigger_id'),
  settable: ['displayName', 'description', 'agent', 'configuration', 'enabled', 'associatedResources'],
  // Ours (docs/decisions.md, "Triggers"): a trigger is live once created unless it says otherwise.
  defaults: { enabled: true },
  undeletable: false,
  references: (trigger) => [
    ...(typeof trigger.agent === 'string' && AGENT_NAME.test(trigger.agent) ? [trigger.agent] : []),
    ...configurationReferences(trigger.configuration),
  ],
  // Not output-only, but the spec's defaults are stored so every reader sees the same configuration.
  derive: (trigger) => ({ configuration: withConfigurationDefaults(trigger.configuration) }),
  validate(trigger, { refs, facts }) {
    if (typeof trigger.agent !== 'string' || !AGENT_NAME.test(trigger.agent)) {
      throw invalid(`agent is required and must look like 'agents/{agent}', got '${String(trigger.agent ?? '')}'`);
    }
    checkConfiguration(trigger.configuration, refs, facts);
    const associated = trigger.associatedResources ?? [];
    if (!Array.isArray(associated) || associated.length > MAX_ASSOCIATED_RESOURCES) {
      throw invalid(`associated_resources must be a list of at most ${MAX_ASSOCIATED_RESOURCES} resource names`);
    }
    for (const [i, name] of associated.entries()) {
      if (typeof name !== 'string' || !RESOURCE_NAME.test(name)) throw invalid(`associated_resources[${i}] must be a resource name such as 'services/checkout', got '${String(name)}'`);
    }
  },
};
