import { sessionsApi } from '@svc/contracts/sessions/sessions.contract';
import { sessionSpec } from '@svc/domain/sessions/session.resource';
import { area } from '../area';
import { sessionsProjection } from './sessions.projection';

/** Sessions (kit Get / Update / Delete) with their runtime state and message log, one projection. */
export const sessionsArea = area('sessions', { resources: [{ spec: sessionSpec, api: sessionsApi }], projections: [sessionsProjection] });
