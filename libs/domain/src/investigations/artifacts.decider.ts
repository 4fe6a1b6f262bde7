/**
 * A session's artifact namespace as a decider: imported once, before the session's seed. A second
 * import into the same session is FAILED_PRECONDITION (a retry with the request_id is answered by
 * the command service before deciding).
 */
import {
  type ArtifactEvent,
  type ArtifactRecord,
  SESSION_ARTIFACTS_IMPORTED,
} from '@svc/contracts/investigations/artifact.events';
import type { Actor, Decider } from '../shared/decider';
import { failedPrecondition } from '../shared/domain-error';

export interface ImportArtifacts {
  type: 'ImportArtifacts';
  actor: Actor;
  session: string;
  source: string;
  artifacts: ArtifactRecord[];
}

export interface ArtifactsState {
  artifacts: ArtifactRecord[] | null;
}

export const artifactsDecider: Decider<ArtifactsState, ImportArtifacts, ArtifactEvent> = {
  initialState: () => ({ artifacts: null }),
  evolve: (_state, event) => ({ artifacts: event.data.artifacts }),
  decide(command, state) {
    if (state.artifacts !== null) throw failedPrecondition(`session '${command.session}' already has its artifacts`);
    return [{ type: SESSION_ARTIFACTS_IMPORTED, data: { session: command.session, source: command.source, artifacts: command.artifacts, importTime: command.actor.now } }];
  },
};
