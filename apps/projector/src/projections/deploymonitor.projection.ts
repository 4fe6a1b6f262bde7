import { evaluationsApi } from '@svc/contracts/deploymonitor/deploymonitor.contract';
import { evaluationSpec } from '@svc/domain/deploymonitor/evaluation.resource';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';

export const deploymonitorProjection = resourceProjection(evaluationSpec, evaluationsApi);
