/**
 * Every area of the product, read by the api (kit resources), the projector (projections and
 * reactors) and the CLI (status, rebuild, read-your-writes waits). A plain area is one line:
 * `resourceArea(spec, api)`; one with reactors of its own is a folder declaring them.
 */
import { agentsApi } from '@svc/contracts/agents/agents.contract';
import { customersApi, customersV1Api } from '@svc/contracts/customers/customers.contract';
import { evaluationsApi } from '@svc/contracts/deploymonitor/deploymonitor.contract';
import { knownIssuesApi } from '@svc/contracts/knownissues/knownissues.contract';
import { notesApi } from '@svc/contracts/notes/notes.contract';
import { issueNotificationPolicyApi } from '@svc/contracts/notificationpolicy/notificationpolicy.contract';
import { runbooksApi } from '@svc/contracts/runbooks/runbooks.contract';
import { skillsBundlesApi } from '@svc/contracts/skillsbundles/skillsbundles.contract';
import { tagsApi } from '@svc/contracts/tags/tags.contract';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { customerSpec } from '@svc/domain/customers/customer.resource';
import { evaluationSpec } from '@svc/domain/deploymonitor/evaluation.resource';
import { knownIssueSpec } from '@svc/domain/knownissues/known-issue.resource';
import { noteSpec } from '@svc/domain/notes/note.resource';
import { issueNotificationPolicySpec } from '@svc/domain/notificationpolicy/issue-notification-policy.resource';
import type { ResourceSpec } from '@svc/domain/shared/resource';
import { runbookSpec } from '@svc/domain/runbooks/runbook.resource';
import { skillsBundleSpec } from '@svc/domain/skillsbundles/skills-bundle.resource';
import { tagSpec } from '@svc/domain/tags/tag.resource';
import type { Projection } from '@svc/infrastructure/projection/projection';
import type { Reactor } from '../reactors/reactor';
import { type Area, resourceArea } from './area';
import { agentSlosArea } from './agentslos';
import { catalogArea } from './catalog';
import { changeMonitorArea } from './changemonitor';
import { connectionsArea } from './connections';
import { deploymentsArea } from './deployments';
import { indicatorsArea } from './indicators';
import { indicatorsV2Area } from './indicatorsv2';
import { investigationsArea } from './investigations';
import { issuesArea } from './issues';
import { monitoringPlansArea } from './monitoringplans';
import { organizationsArea } from './organizations';
import { rolesArea } from './roles';
import { sessionsArea } from './sessions';
import { triggersArea } from './triggers';

export const AREAS: readonly Area[] = [
  organizationsArea,
  rolesArea,
  connectionsArea,
  resourceArea(noteSpec, notesApi),
  resourceArea(tagSpec, tagsApi),
  resourceArea(agentSpec, agentsApi),
  sessionsArea,
  triggersArea,
  resourceArea(skillsBundleSpec, skillsBundlesApi),
  resourceArea(issueNotificationPolicySpec, issueNotificationPolicyApi),
  resourceArea(customerSpec, customersApi, customersV1Api),
  resourceArea(knownIssueSpec, knownIssuesApi),
  resourceArea(runbookSpec, runbooksApi),
  deploymentsArea,
  resourceArea(evaluationSpec, evaluationsApi),
  catalogArea,
  investigationsArea,
  agentSlosArea,
  issuesArea,
  monitoringPlansArea,
  indicatorsArea,
  indicatorsV2Area,
  changeMonitorArea,
];

/** Every projection the projector runs, each with its own checkpoint, in the areas' order. */
export const PROJECTIONS: readonly Projection[] = AREAS.flatMap((a) => a.projections);

/** Every reactor the projector's host runs, each under its own name (checkpoint, status, metrics label), in the areas' order. */
export const REACTORS: readonly Reactor[] = AREAS.flatMap((a) => a.reactors);

/** The log-driven reactors' names: those with a checkpoint (`reactor:<name>`), which the metrics report. */
export const CHECKPOINTED_REACTORS: readonly string[] = REACTORS.filter((r) => r.drivenBy === 'events').map((r) => r.name);

export function projectionNamed(name: string): Projection {
  const projection = PROJECTIONS.find((p) => p.name === name);
  if (!projection) throw new Error(`unknown projection '${name}'; known: ${PROJECTIONS.map((p) => p.name).join(', ')}`);
  return projection;
}

/** The projection a command on `spec`'s resources waits for (read your writes), from its area. */
export function projectionServing(spec: Pick<ResourceSpec, 'kind'>): string {
  for (const a of AREAS) for (const r of a.resources) if (r.spec.kind === spec.kind) return r.waitsFor;
  throw new Error(`no area serves ${spec.kind}`);
}
