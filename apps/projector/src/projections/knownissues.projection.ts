import { knownIssuesApi } from '@svc/contracts/knownissues/knownissues.contract';
import { knownIssueSpec } from '@svc/domain/knownissues/known-issue.resource';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';

export const knownIssuesProjection = resourceProjection(knownIssueSpec, knownIssuesApi);
