/**
 * Sessions (spec part 2, "Session", CreateSession): nested under an agent, created with settings that
 * never change afterwards; only `associatedResources` is updatable. The kit's decider serves the
 * resource events of the stream; session.decider.ts adds messages, turns, status and conclusion.
 */
import { REASONING_EFFORTS, SESSION_EVENTS, SESSION_RUNTIME_NXL } from '@svc/contracts/sessions/session.events';
import { agentSpec } from '../agents/agent.resource';
import { entryInputsOf } from '../agents/entry-inputs';
import { invalid } from '../shared/domain-error';
import { COMMON_ID_PATTERN, parentName, type Resource, type ResourceSpec, type ValidationContext } from '../shared/resource';
import { checkSessionInputs } from './messages';

export const MAX_ASSOCIATED_RESOURCES = 100;
const RESOURCE_NAME = /^[a-z][a-zA-Z0-9-]*\/[^/\s]+(\/[a-zA-Z0-9-]+\/[^/\s]+)*$/;
const CREATE_ONLY = [
  'title',
  'incognito',
  'automated',
  'dryRun',
  'runtime',
  'bashPrelude',
  'inputs',
  'compatProvider',
  'compatModel',
  'compatReasoningEffort',
  'mockTime',
  // Set by InvokeTrigger only (the API's CreateSession does not pass it): where the seed came from.
  'origin',
] as const;

/** Facts a session's create rules need that the resource does not hold: the configured type host. */
export interface SessionFacts {
  typeHost: string;
}

export function checkAssociatedResources(value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) throw invalid('associated_resources must be a list of resource names');
  if (value.length > MAX_ASSOCIATED_RESOURCES) throw invalid(`associated_resources has ${value.length} names; at most ${MAX_ASSOCIATED_RESOURCES} are allowed`);
  value.forEach((name: unknown, i) => {
    if (typeof name !== 'string' || name.length > 512 || !RESOURCE_NAME.test(name)) {
      throw invalid(`associated_resources[${i}] must be a resource name such as 'tool-calls/{id}' or 'deployments/{id}', got '${String(name)}'`);
    }
  });
}

/**
 * The create rules of the CreateSession table. The parent agent (looked up by the handler, live) is
 * in `refs`; its declared entry inputs judge `inputs`.
 */
function checkCreate(session: Resource, refs: ValidationContext['refs'], facts: SessionFacts): void {
  const nxl = session.runtime === SESSION_RUNTIME_NXL;
  if (session.runtime !== undefined && (typeof session.runtime !== 'string' || !/^SESSION_RUNTIME_[A-Z0-9_]+$/.test(session.runtime))) {
    throw invalid(`runtime must be a runtime selector such as '${SESSION_RUNTIME_NXL}', got '${String(session.runtime)}'`);
  }
  if (session.bashPrelude !== undefined && !nxl) throw invalid(`bash_prelude is only allowed with runtime ${SESSION_RUNTIME_NXL}`);
  if (session.inputs !== undefined && !nxl) throw invalid(`inputs are only allowed with runtime ${SESSION_RUNTIME_NXL}`);
  if (session.compatProvider !== undefined && session.compatModel === undefined) throw invalid('compat_model is required when compat_provider is set');
  if (session.compatReasoningEffort !== undefined && !(REASONING_EFFORTS as readonly unknown[]).includes(session.compatReasoningEffort)) {
    throw invalid(`compat_reasoning_effort must be one of ${REASONING_EFFORTS.join(', ')}, got '${String(session.compatReasoningEffort)}'`);
  }
  if (nxl) {
    const agent = parentName(session.name);
    const declared = entryInputsOf(refs.get(agent));
    checkSessionInputs(session.inputs ?? {}, declared, agent, facts.typeHost);
  }
}

/** The session spec, bound to the facts its create rules need (the type host of the deployment). */
export function sessionSpecWith(facts: SessionFacts): ResourceSpec {
  return {
    kind: 'Session',
    collection: 'sessions',
    parent: agentSpec,
    store: 'sessions',
    idRequired: false,
    idPattern: COMMON_ID_PATTERN,
    idRule: 'session_id must start with a letter or digit and contain only letters, digits, hyphens and underscores (at most 128 characters)',
    settable: ['associatedResources', ...CREATE_ONLY],
    immutable: CREATE_ONLY,
    undeletable: false,
    // The session's messages, turns and conclusion share its stream (session.decider.ts).
    streamEvents: Object.values(SESSION_EVENTS).filter((t) => !/(Created|Updated|Deleted)$/.test(t)),
    // dry_run forces incognito (spec: backtesting mode).
    onCreate: (session, actor) => ({ ...session, ...(session.dryRun === true ? { incognito: true } : {}), createdBy: actor.subject }),
    validate(session, { refs, previous }) {
      checkAssociatedResources(session.associatedResources);
      if (!previous) checkCreate(session, refs, facts);
    },
  };
}

/** The spec for everything but create rules (reads, update, delete, projection): the type host is not consulted. */
export const sessionSpec: ResourceSpec = sessionSpecWith({ typeHost: 'type.googleapis.com' });
