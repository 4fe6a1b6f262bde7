import { changeMonitorSetupsApi } from '@svc/contracts/changemonitor/changemonitor.contract';
import { changeMonitorSetupSpec } from '@svc/domain/changemonitor/change-monitor-setup.resource';
import { resourceArea } from '../area';

/**
 * Change-monitor notifications: each member's setup, a kit resource written by Put from the
 * service's own methods (apps/api/src/changemonitor) and projected by the kit's projection. The DM
 * seam monitoring plans call is ./change-monitor-dm.ts.
 */
export const changeMonitorArea = resourceArea(changeMonitorSetupSpec, changeMonitorSetupsApi);
export { sendChangeMonitorDm, type ChangeMonitorDmAuthor, type ChangeMonitorDmDeps, type ChangeMonitorDmOutcome } from './change-monitor-dm';
