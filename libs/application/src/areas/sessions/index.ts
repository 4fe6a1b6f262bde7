import { sessionsApi } from '@svc/contracts/sessions/sessions.contract';
import { sessionSpec } from '@svc/domain/sessions/session.resource';
import { area } from '../area';
import { agentRuntimeReactor } from './agent-runtime.reactor';
import { sessionsProjection } from './sessions.projection';

/** Sessions (kit Get / Update / Delete) with their runtime state and message log, one projection; the agent runtime answers their turns. */
export const sessionsArea = area('sessions', { resources: [{ spec: sessionSpec, api: sessionsApi }], projections: [sessionsProjection], reactors: [agentRuntimeReactor] });
