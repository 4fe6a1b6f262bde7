/**
 * Issue references a pull request closes (spec part 2, monitoring plans rule 6): a closing keyword
 * (close, closes, closed, fix, fixes, fixed, resolve, resolves, resolved: the spec's three and the
 * forms GitHub reads as the same words), an optional colon, then an issue key (`issues/{id}`) or an
 * issue URL (any `http(s)://…/issues/{id}`). A bare mention ("see issues/a") closes nothing.
 *
 * One pass over the text, each character looked at a bounded number of times: no regular expression
 * runs over the text itself (only anchored, backtracking-free checks on one bounded token).
 */

/** Longest text read (GitHub's own cap on a pull request body is 65,536 characters; a title is shorter). */
export const MAX_PULL_REQUEST_TEXT = 65_536;
/** References kept from one text, in order of first appearance. */
export const MAX_CLOSING_REFERENCES = 50;
/** A reference token longer than this is not one (a URL of 2,048 characters is generous). */
const MAX_TOKEN = 2048;
const KEYWORDS = new Set(['close', 'closes', 'closed', 'fix', 'fixes', 'fixed', 'resolve', 'resolves', 'resolved']);
const LONGEST_KEYWORD = 8;
/** An issue ID by the common rule (wire convention 5). */
const ISSUE_ID = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$/;
const TRAILING = new Set(['.', ',', ';', ':', ')', ']', '!', '?', '"', "'", '>']);

const isWordChar = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_';
const isLetter = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

/** `issues/{id}` names of the issues `text` closes, each once, in order; text past the cap is not read. */
export function closingReferences(text: string): string[] {
  const s = text.length > MAX_PULL_REQUEST_TEXT ? text.slice(0, MAX_PULL_REQUEST_TEXT) : text;
  const found: string[] = [];
  const seen = new Set<string>();
  let i = 0;
  while (i < s.length && found.length < MAX_CLOSING_REFERENCES) {
    // A word starts here only after a non-word character.
    if (!isLetter(s[i]) || (i > 0 && isWordChar(s[i - 1]))) {
      i++;
      continue;
    }
    let end = i;
    while (end < s.length && isWordChar(s[end])) end++;
    const word = end - i <= LONGEST_KEYWORD ? s.slice(i, end).toLowerCase() : '';
    i = end;
    if (!KEYWORDS.has(word)) continue;
    let j = end;
    if (s[j] === ':') j++;
    const spaceStart = j;
    while (j < s.length && isSpace(s[j])) j++;
    // "fixes issues/a" or "fixes: issues/a" or "fixes:issues/a"; "fixesissues/a" is one word.
    if (j === spaceStart && j === end) continue;
    let k = j;
    while (k < s.length && !isSpace(s[k]) && k - j <= MAX_TOKEN) k++;
    if (k - j > MAX_TOKEN) {
      i = k;
      continue;
    }
    const reference = issueOf(s.slice(j, k));
    // The token is consumed: "fixes fixes issues/a" reads the second "fixes" as the reference and fails.
    i = k;
    if (reference !== null && !seen.has(reference)) {
      seen.add(reference);
      found.push(reference);
    }
  }
  return found;
}

/** `issues/{id}` of a key or an issue URL, or null. */
export function issueOf(token: string): string | null {
  let end = token.length;
  while (end > 0 && TRAILING.has(token[end - 1])) end--;
  let t = token.slice(0, end);
  if (t.startsWith('http://') || t.startsWith('https://')) {
    t = t.slice(0, firstOf(t, '?', '#'));
    if (t.endsWith('/')) t = t.slice(0, -1);
    const pathStart = t.indexOf('/', t.indexOf('//') + 2);
    if (pathStart < 0) return null;
    // `https://host[/any/path]/issues/{id}`: the last two path segments.
    const segments = t.slice(pathStart + 1).split('/');
    if (segments.length < 2 || segments[segments.length - 2] !== 'issues') return null;
    const id = segments[segments.length - 1];
    return ISSUE_ID.test(id) ? `issues/${id}` : null;
  }
  if (!t.startsWith('issues/')) return null;
  const id = t.slice('issues/'.length);
  return ISSUE_ID.test(id) ? `issues/${id}` : null;
}

function firstOf(s: string, ...chars: string[]): number {
  let at = s.length;
  for (const c of chars) {
    const found = s.indexOf(c);
    if (found >= 0 && found < at) at = found;
  }
  return at;
}
