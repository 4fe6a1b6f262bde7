/**
 * Known issues (spec part 2, "Known issue"): a tracked problem that starts active and is resolved by
 * an update. Only the two status values exist; a new known issue is always active.
 */
import { KNOWN_ISSUE_STATUSES } from '@svc/contracts/knownissues/knownissues.contract';
import { invalid } from '../shared/domain-error';
import { commonId, type ResourceSpec } from '../shared/resource';

const ACTIVE = 'KNOWN_ISSUE_STATUS_ACTIVE';

export const knownIssueSpec: ResourceSpec = {
  kind: 'KnownIssue',
  collection: 'known-issues',
  idRequired: true,
  // The spec gives no rule for known issue IDs; we apply the common one with a 128 cap.
  ...commonId('known_issue_id'),
  settable: ['title', 'context', 'humanDescription', 'status'],
  defaults: { status: ACTIVE },
  undeletable: false,
  validate(issue, { previous }) {
    const status = issue.status;
    if (typeof status !== 'string' || !(KNOWN_ISSUE_STATUSES as readonly string[]).includes(status)) {
      throw invalid(`status of known issue '${issue.name}' must be one of ${KNOWN_ISSUE_STATUSES.join(', ')}, got '${String(status ?? '')}'`);
    }
    // States table (part 2): a known issue starts active; UpdateKnownIssue resolves it.
    if (previous === undefined && status !== ACTIVE) {
      throw invalid(`a known issue starts as ${ACTIVE}; resolve '${issue.name}' with UpdateKnownIssue`);
    }
  },
};
