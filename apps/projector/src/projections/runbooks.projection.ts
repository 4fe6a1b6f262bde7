import { runbooksApi } from '@svc/contracts/runbooks/runbooks.contract';
import { runbookSpec } from '@svc/domain/runbooks/runbook.resource';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';

export const runbooksProjection = resourceProjection(runbookSpec, runbooksApi);
