/**
 * Which `sub` of an identity provider may become a member `users/{sub}` (docs/decisions.md,
 * "Bearer subjects"). A subject names a person everywhere it is shown and filtered on
 * (`created_by = "users/..."`), so it must read as exactly one name: no invisible or look-alike
 * spellings of another member, no wildcard that a filter would take for "anyone", no `/` that
 * would make it a different resource name.
 */

/** Longest subject accepted, in UTF-16 code units: room for UUIDs, emails and `provider|id` forms. */
export const USER_SUBJECT_MAX = 128;

/**
 * One negated character class under one quantifier: linear, nothing to backtrack. Refused: every
 * \p{C} (control, format such as U+200B, surrogate, private use, unassigned), every separator
 * \p{Z} and \s, the AIP-160 wildcard `*`, and `/`.
 */
const SAFE_CHARACTERS = /^[^\p{C}\p{Z}\s*/]+$/u;

/**
 * Why `subject` is not a safe user ID, or null when it is. A subject that NFKC would change is
 * refused, not normalized: normalizing would fold two subjects the identity provider keeps apart
 * (`ａｌｉｃｅ` and `alice`) into one member.
 */
export function userSubjectProblem(subject: string): string | null {
  if (subject.length === 0 || subject.length > USER_SUBJECT_MAX) return `must be 1 to ${USER_SUBJECT_MAX} characters`;
  if (!SAFE_CHARACTERS.test(subject)) return 'may not contain control, format (invisible), whitespace, wildcard (*) or / characters';
  if (subject.normalize('NFKC') !== subject) return 'must be in Unicode NFKC form';
  if (subject === '.' || subject === '..') return 'may not be . or ..';
  return null;
}
