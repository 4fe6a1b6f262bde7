/**
 * Agents (spec part 2, "Agent"): automated workflows with a prompt, bound connections with their
 * enabled tools, tags and an on/off state. Sessions are a separate area.
 */
import { AGENT_STATES } from '@svc/contracts/agents/agents.contract';
import { boundConnections, checkConnectionBindings } from '../connections/connection-bindings';
import { invalid } from '../shared/domain-error';
import type { JsonObject } from '../shared/json-path';
import { commonId, type ResourceSpec } from '../shared/resource';
import { checkEntryInputs } from './entry-inputs';

/** State of an agent created without one: usable at once; OFF is the explicit pause (docs/decisions.md). */
export const DEFAULT_AGENT_STATE = 'AGENT_STATE_ON';

const TAG_NAME = /^tags\/[^/]+$/;

function tagsOf(agent: JsonObject): unknown[] {
  return Array.isArray(agent.tags) ? agent.tags : [];
}

export const agentSpec: ResourceSpec = {
  kind: 'Agent',
  collection: 'agents',
  idRequired: true,
  // Spec: alphanumeric, hyphens, underscores, starting with a letter or digit. The 128 cap is ours.
  ...commonId('agent_id'),
  settable: ['title', 'description', 'prompt', 'connections', 'state', 'tags', 'entryInputs'],
  defaults: { state: DEFAULT_AGENT_STATE },
  undeletable: true,
  // Malformed tag names are not looked up; validate names the problem instead of "does not exist".
  references: (agent) => [
    ...tagsOf(agent).filter((tag): tag is string => typeof tag === 'string' && TAG_NAME.test(tag)),
    ...boundConnections(agent),
  ],
  onCreate: (agent, actor) => ({ ...agent, createdBy: actor.subject }),
  validate(agent, { refs, previous }) {
    if (!(AGENT_STATES as readonly unknown[]).includes(agent.state)) {
      throw invalid(`state of agent '${agent.name}' must be ${AGENT_STATES.join(' or ')}, got '${String(agent.state ?? '')}'`);
    }
    const seen = new Set<unknown>();
    for (const [i, tag] of tagsOf(agent).entries()) {
      if (typeof tag !== 'string' || !TAG_NAME.test(tag)) throw invalid(`tags[${i}] must look like 'tags/{tag_id}', got '${String(tag)}'`);
      if (seen.has(tag)) throw invalid(`tags[${i}]: '${tag}' is listed twice`);
      seen.add(tag);
    }
    checkConnectionBindings(agent, refs, previous);
    checkEntryInputs(agent.entryInputs);
  },
};
