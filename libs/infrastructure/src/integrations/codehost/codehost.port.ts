/**
 * The code host port (issue 21, "Ports and real adapters"): what the product reads from where its
 * users keep their code. Two adapters: local git (repositories under a root, the machine's own `git`;
 * the embedded default and the tests) and GitHub (`@octokit/rest`). Both run the same contract suite
 * (test/contracts/codehost.contract.spec.ts). Adapters never put a credential in an error.
 */

/** A repository as ListRepositories answers it (spec part 1, "Code-host repository"). */
export interface Repository {
  /** `owner/repo` */
  fullName: string;
  defaultBranch: string;
  private: boolean;
}

export interface Commit {
  sha: string;
  /** First line of the message. */
  subject: string;
  author: string;
  /** RFC 3339. */
  time: string;
}

export interface TreeEntry {
  /** The entry's name within its directory. */
  name: string;
  /** Repository-relative path. */
  path: string;
  type: 'file' | 'dir';
}

/** One page of an ordered listing; `offset` is where the next page starts, null at the end. */
export interface Slice<T> {
  items: T[];
  next: number | null;
}

export interface CodeHost {
  /** Repositories the connection can see, ordered by full name. */
  listRepositories(offset: number, limit: number): Promise<Slice<Repository>>;
  /** One repository, or NOT_FOUND. */
  getRepository(fullName: string): Promise<Repository>;
  /** Branch names, ordered by name. */
  listBranches(fullName: string, offset: number, limit: number): Promise<Slice<string>>;
  /** The commit a ref (branch, tag or sha) names, or null when it names nothing. */
  resolveRef(fullName: string, ref: string): Promise<string | null>;
  /**
   * Whether `ancestor` is reachable from `descendant` (a commit is its own ancestor): the post-deploy
   * trigger's "the release commit landed". A commit the host does not know is not an ancestor.
   */
  isAncestor(fullName: string, ancestor: string, descendant: string): Promise<boolean>;
  /** Commits reachable from `head` and not from `base`, newest first, at most `limit`. */
  commitsBetween(fullName: string, base: string, head: string, limit: number): Promise<Commit[]>;
  /** A directory's entries at a ref, ordered by name; NOT_FOUND when the directory is absent. */
  listDirectory(fullName: string, ref: string, directory: string): Promise<TreeEntry[]>;
  /** A file's text at a ref, cut at `maxBytes`; null when absent. */
  readFile(fullName: string, ref: string, path: string, maxBytes: number): Promise<{ text: string; truncated: boolean } | null>;

  // ---- history and code search (the TOOL_CODEHOST_* agent tools)

  /** The commits reachable from `ref`, newest first, at most `limit`; NOT_FOUND when the ref names nothing. */
  listCommits(fullName: string, ref: string, limit: number): Promise<Commit[]>;
  /**
   * Files of the repository's default branch holding `query` as a fixed string, case-insensitively
   * (as GitHub's code search matches), optionally under a path prefix; at most `maxMatches` matches.
   */
  searchCode(fullName: string, query: string, options: { maxMatches: number; path?: string }): Promise<CodeSearchResult>;
}

export type CodeHostErrorCode = 'NOT_FOUND' | 'INVALID_ARGUMENT' | 'PERMISSION_DENIED' | 'UNAVAILABLE';

/** A failure the caller can answer with its code; the message names the repository, never a credential. */
export class CodeHostError extends Error {
  constructor(
    readonly code: CodeHostErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CodeHostError';
  }
}

/** `owner/repo`, each part a plain name (no path tricks); linear, anchored, no backtracking. */
const FULL_NAME = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;

export function checkFullName(fullName: string): [owner: string, repo: string] {
  const parts = fullName.split('/');
  if (!FULL_NAME.test(fullName) || parts.some((p) => p === '.' || p === '..')) {
    throw new CodeHostError('INVALID_ARGUMENT', `repository must be 'owner/repo', got '${fullName.slice(0, 210)}'`);
  }
  return [parts[0], parts[1]];
}

/** A git ref or sha as a user may name one: no option-looking or range syntax reaches the host. */
const REF = /^[A-Za-z0-9_][A-Za-z0-9_./-]{0,254}$/;

export function checkRef(ref: string): string {
  if (!REF.test(ref) || ref.includes('..') || ref.endsWith('/') || ref.endsWith('.lock')) {
    throw new CodeHostError('INVALID_ARGUMENT', `'${ref.slice(0, 255)}' is not a valid git ref`);
  }
  return ref;
}

/** A repository-relative directory or file path: no absolute path, no `..`, no empty segment. */
export function checkPath(p: string): string {
  let [start, end] = [0, p.length];
  while (start < end && p[start] === '/') start++;
  while (end > start && p[end - 1] === '/') end--;
  const trimmed = p.slice(start, end);
  if (p.length > 1024 || trimmed.split('/').some((s) => s === '..' || s === '.' || (s === '' && trimmed !== ''))) {
    throw new CodeHostError('INVALID_ARGUMENT', `'${p.slice(0, 1024)}' is not a repository path`);
  }
  return trimmed;
}

// ---- code search (the TOOL_CODEHOST_* agent tools)

/** One place a search matched: a line (local git) or a fragment around the match (GitHub, whose search gives no line numbers). */
export interface CodeMatch {
  path: string;
  /** 1-based; null when the host does not say. */
  line: number | null;
  /** The matching line or fragment, cut at MAX_MATCH_TEXT characters. */
  text: string;
}

export interface CodeSearchResult {
  matches: CodeMatch[];
  /** More matched than was answered (the cap, or the host's own incomplete results). */
  truncated: boolean;
}

/** Longest search query (GitHub's own limit for the search terms). */
export const MAX_SEARCH_QUERY = 256;
/** Characters of one match's text. */
export const MAX_MATCH_TEXT = 300;

/** A search query as the port takes one: 1 to MAX_SEARCH_QUERY characters, one line, no control characters. */
export function checkSearchQuery(query: string): string {
  if (query.trim() === '' || query.length > MAX_SEARCH_QUERY || /[\u0000-\u001f\u007f]/.test(query)) {
    throw new CodeHostError('INVALID_ARGUMENT', `the search query must be 1 to ${MAX_SEARCH_QUERY} characters on one line`);
  }
  return query;
}

/** A match's text cut to MAX_MATCH_TEXT characters. */
export function matchText(text: string): string {
  return text.length > MAX_MATCH_TEXT ? `${text.slice(0, MAX_MATCH_TEXT)}…` : text;
}

// ------------------------------------------------------------------ pull requests (monitoring plans)
// A block of its own (interface merging), so other additions to the port merge without touching it.

/** A pull request as monitoring plans read it (spec part 2, "Monitoring plan", origin and activation). */
export interface PullRequest {
  number: number;
  /** Its page: `https://github.com/{owner}/{repo}/pull/{n}`, or `local-git://{owner}/{repo}/pull/{n}`. */
  url: string;
  title: string;
  body: string;
  state: 'open' | 'closed';
  merged: boolean;
  headSha: string;
  /** The commit that landed the change, once merged; null before (GitHub's test merge commit is not one). */
  mergeSha: string | null;
  authorLogin: string;
  /** The host's user id, as a string (GitHub's are int64). */
  authorId: string;
}

/** A comment on a pull request's conversation. */
export interface PullRequestComment {
  /** The host's id, as a string (GitHub's are int64). */
  id: string;
  url: string;
  body: string;
}

/** Longest comment body the port posts (GitHub's own limit on an issue comment is 65,536 characters). */
export const MAX_COMMENT_BODY = 65_536;

export interface CodeHost {
  /** One pull request by number, or NOT_FOUND. */
  getPullRequest(fullName: string, number: number): Promise<PullRequest>;
  /** Posts a comment on the pull request's conversation; NOT_FOUND when there is no such pull request. */
  postComment(fullName: string, number: number, body: string): Promise<PullRequestComment>;
  /** Replaces a comment's body in place; NOT_FOUND when the comment is gone. */
  editComment(fullName: string, commentId: string, body: string): Promise<PullRequestComment>;
}

export function checkPullNumber(number: number): number {
  if (!Number.isSafeInteger(number) || number < 1) throw new CodeHostError('INVALID_ARGUMENT', `'${String(number).slice(0, 30)}' is not a pull request number`);
  return number;
}

export function checkCommentBody(body: string): string {
  if (body.length === 0 || body.length > MAX_COMMENT_BODY) throw new CodeHostError('INVALID_ARGUMENT', `a comment must hold 1 to ${MAX_COMMENT_BODY} characters`);
  return body;
}

/** A comment id as the hosts issue them: digits only, exact as a JS number (GitHub's are int64). */
export function checkCommentId(id: string): string {
  if (!/^[0-9]{1,15}$/.test(id)) throw new CodeHostError('INVALID_ARGUMENT', `'${id.slice(0, 30)}' is not a comment id`);
  return id;
}
