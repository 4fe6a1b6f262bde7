/**
 * Issues' enums and limits, free of decorators so the domain can read them without loading the
 * wire DTOs (and reflect-metadata) of issues.contract.ts.
 */
export const ISSUE_WORKFLOW_STATES = [
  'ISSUE_WORKFLOW_STATE_ACTIONABLE',
  'ISSUE_WORKFLOW_STATE_VERIFYING_FIX',
  'ISSUE_WORKFLOW_STATE_CLOSED',
] as const;
export const ISSUE_VALIDATION_SERVICE = 'svc.issues.v2.IssueValidationService';
export const VALIDATE_ISSUE_EVIDENCE = 'ValidateIssueEvidence';
/** Spec limits (part 1, "Limits"). */
export const MAX_EVIDENCE_CONTEXT = 15_000;
export const MAX_PROPOSED_ISSUES = 10;
/** Ours: a proposed issue's fields (docs/api-coverage.md limits). */
export const MAX_PROPOSED_TITLE = 500;
export const MAX_PROPOSED_TEXT = 10_000;

export const EVIDENCE_DECISIONS = {
  pass: 'ISSUE_EVIDENCE_VALIDATION_DECISION_PASS',
  fail: 'ISSUE_EVIDENCE_VALIDATION_DECISION_FAIL',
  skipped: 'ISSUE_EVIDENCE_VALIDATION_DECISION_SKIPPED',
} as const;
