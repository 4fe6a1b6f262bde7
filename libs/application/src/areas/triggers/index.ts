import { triggersApi } from '@svc/contracts/triggers/triggers.contract';
import { triggerSpec } from '@svc/domain/triggers/trigger.resource';
import { resourceArea, withReactors } from '../area';
import { cronReactor } from './cron.reactor';
import { postDeployReactor } from './post-deploy.reactor';
import { rowsReactor } from './row.reactor';

/** Triggers: a plain kit resource, and the reactors that fire them (docs/decisions.md, "Trigger reactors"). */
export const triggersArea = withReactors(resourceArea(triggerSpec, triggersApi), cronReactor, postDeployReactor, rowsReactor);
