import { issuesApi } from '@svc/contracts/issues/issues.contract';
import { issueSpec } from '@svc/domain/issues/issue.resource';
import { resourceArea, withReactors } from '../area';
import { issuesReactor } from './issues.reactor';

/** Issues: a plain kit resource, and the reactor that creates them from concluded sessions. */
export const issuesArea = withReactors(resourceArea(issueSpec, issuesApi), issuesReactor);
