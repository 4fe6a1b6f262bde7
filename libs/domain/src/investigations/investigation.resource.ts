/**
 * Investigations (spec part 2, "Investigation"): an agent session started by a seed message, with a
 * status the server moves (EXECUTING while the agent works, WAITING once its turn is done) and the
 * client may set through UpdateInvestigation. No delete.
 */
import { INVESTIGATION_STATUSES, type InvestigationStatus } from '@svc/contracts/investigations/investigations.contract';
import type { Actor } from '../shared/decider';
import { invalid } from '../shared/domain-error';
import type { JsonObject } from '../shared/json-path';
import { commonId, type Resource, type ResourceSpec } from '../shared/resource';

export const EXECUTING: InvestigationStatus = 'INVESTIGATION_STATUS_EXECUTING';
export const WAITING: InvestigationStatus = 'INVESTIGATION_STATUS_WAITING';

/**
 * The agent that investigates, one per organization (`agents/svc-investigator`), created on the
 * first CreateInvestigation (docs/decisions.md, "Investigations").
 */
export const INVESTIGATOR_AGENT_ID = 'svc-investigator';
export const INVESTIGATOR_AGENT = `agents/${INVESTIGATOR_AGENT_ID}`;
export const INVESTIGATOR_PROMPT =
  'You investigate incidents and questions about production systems. Read the seed message and any artifacts of the session, use the tools you have, and report what you found and what you could not check.';

export const MAX_DISPLAY_NAME = 256;
export const MAX_DESCRIPTION = 16_384;

/** The investigation's session: the investigator's, with the investigation's ID (derived, so a retry finds it). */
export function sessionOfInvestigation(name: string): string {
  return `${INVESTIGATOR_AGENT}/sessions/${name.slice(name.lastIndexOf('/') + 1)}`;
}

/** The investigation a session of the investigator serves, or null for any other session. */
export function investigationOfSession(session: string): string | null {
  const prefix = `${INVESTIGATOR_AGENT}/sessions/`;
  return session.startsWith(prefix) ? `investigations/${session.slice(prefix.length)}` : null;
}

export const STATUS_OBSERVED = 'InvestigationStatusObserved';

/**
 * The server's own status move (the agent finished its turn): `input.status`, and nothing when the
 * investigation already has it. A client's status change is an ordinary update.
 */
export function observeStatus(investigation: Resource, input: JsonObject, actor: Actor) {
  const status = input.status;
  if (!(INVESTIGATION_STATUSES as readonly unknown[]).includes(status)) throw invalid(`status must be one of ${INVESTIGATION_STATUSES.join(', ')}`);
  if (investigation.status === status) return null;
  void actor;
  return { event: STATUS_OBSERVED, set: { status: status as string }, data: { turnId: String(input.turnId ?? '') } };
}

export const investigationSpec: ResourceSpec = {
  kind: 'Investigation',
  collection: 'investigations',
  idRequired: false,
  ...commonId('investigation_id'),
  settable: ['displayName', 'description', 'status'],
  undeletable: false,
  onCreate: (investigation, actor) => ({ ...investigation, createdBy: actor.subject }),
  derive: (investigation) => ({ session: sessionOfInvestigation(investigation.name) }),
  validate(investigation) {
    if (!(INVESTIGATION_STATUSES as readonly unknown[]).includes(investigation.status)) {
      throw invalid(`status must be one of ${INVESTIGATION_STATUSES.join(', ')}, got '${String(investigation.status ?? '')}'`);
    }
    const displayName = investigation.displayName;
    if (typeof displayName === 'string' && displayName.length > MAX_DISPLAY_NAME) throw invalid(`display_name is longer than ${MAX_DISPLAY_NAME} characters`);
    const description = investigation.description;
    if (typeof description === 'string' && description.length > MAX_DESCRIPTION) throw invalid(`description is longer than ${MAX_DESCRIPTION} characters`);
  },
  actions: { [STATUS_OBSERVED]: observeStatus },
};
