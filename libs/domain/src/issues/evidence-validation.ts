/**
 * ValidateIssueEvidence's rule-based validator: advisory, changes nothing. A proposed issue is
 * supported when it says what is wrong (a description or details) and the evidence mentions what it
 * is about: at least half of its title's significant words (4+ letters or digits, not a stop word)
 * appear in the evidence context. Linear in the input: the evidence is split into a word set once.
 */
import { EVIDENCE_DECISIONS } from '@svc/contracts/issues/issue-enums';

export const RULES_VALIDATOR_VERSION = 'rules-1';

export interface ProposedIssueText {
  title: string;
  description?: string;
  details?: string;
}

export interface EvidenceFinding {
  issueIndex: number;
  title: string;
  supported: boolean;
  reason: string;
}

export interface EvidenceValidation {
  decision: (typeof EVIDENCE_DECISIONS)[keyof typeof EVIDENCE_DECISIONS];
  passes: boolean;
  feedback: string;
  findings: EvidenceFinding[];
  validatorVersion: string;
}

const STOP_WORDS = new Set(['this', 'that', 'with', 'from', 'have', 'when', 'were', 'will', 'into', 'than', 'then', 'after', 'before', 'there', 'their', 'about', 'some', 'issue']);
const WORD = /[\p{L}\p{N}]{4,}/gu;

const wordsOf = (text: string): string[] => (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOP_WORDS.has(w));

/** No validator configured (or it could not complete): SKIPPED, and passes (fail-open). */
export function skippedValidation(why: string): EvidenceValidation {
  return { decision: EVIDENCE_DECISIONS.skipped, passes: true, feedback: why, findings: [], validatorVersion: '' };
}

export function validateEvidenceByRules(issues: readonly ProposedIssueText[], evidence: string): EvidenceValidation {
  const known = new Set(wordsOf(evidence));
  const findings = issues.map((issue, issueIndex): EvidenceFinding => {
    const finding = (supported: boolean, reason: string) => ({ issueIndex, title: issue.title, supported, reason });
    if (!issue.description?.trim() && !issue.details?.trim()) return finding(false, 'the issue has neither a description nor details saying what is wrong');
    const terms = [...new Set(wordsOf(issue.title))];
    if (terms.length === 0) return finding(false, 'the title names nothing the evidence could support');
    const found = terms.filter((t) => known.has(t));
    if (found.length * 2 < terms.length) {
      return finding(false, `the evidence does not mention ${terms.filter((t) => !known.has(t)).map((t) => `'${t}'`).join(', ')}`);
    }
    return finding(true, `the evidence mentions ${found.map((t) => `'${t}'`).join(', ')}`);
  });
  const unsupported = findings.filter((f) => !f.supported);
  const passes = unsupported.length === 0;
  return {
    decision: passes ? EVIDENCE_DECISIONS.pass : EVIDENCE_DECISIONS.fail,
    passes,
    feedback: passes
      ? `All ${issues.length} proposed issue(s) are supported by the evidence.`
      : `${unsupported.length} of ${issues.length} proposed issue(s) lack sufficient evidence: ${unsupported.map((f) => `#${f.issueIndex} ${f.title}`).join('; ')}.`,
    findings,
    validatorVersion: RULES_VALIDATOR_VERSION,
  };
}
