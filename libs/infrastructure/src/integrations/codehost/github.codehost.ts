/**
 * The GitHub code host, on the official client (`@octokit/rest`) with a token (a personal access token
 * or an app installation token). GitHub pages by page number (`per_page` at most 100); the port pages
 * by offset, so one port page reads at most two GitHub pages. The token goes only into the client's
 * Authorization header: errors are rebuilt from the status, never from the request.
 */
import { Octokit } from '@octokit/rest';
import {
  checkCommentBody,
  checkCommentId,
  checkFullName,
  checkPath,
  checkPullNumber,
  checkRef,
  checkSearchQuery,
  type CodeHost,
  CodeHostError,
  type CodeMatch,
  type CodeSearchResult,
  type Commit,
  matchText,
  type PullRequest,
  type PullRequestComment,
  type Repository,
  type Slice,
  type TreeEntry,
} from './codehost.port';

export interface GitHubOptions {
  /** `https://api.github.com`, or a GitHub Enterprise Server's `https://host/api/v3`. */
  apiUrl?: string;
  token: string;
  timeoutMs?: number;
}

/** GitHub's own maximum `per_page`. */
const GITHUB_PAGE = 100;
/** The compare endpoint lists at most 250 commits (GitHub's REST reference, "Compare two commits"). */
const COMPARE_MAX_COMMITS = 250;

interface RepoRecord {
  full_name: string;
  default_branch?: string;
  private: boolean;
}

export class GitHubCodeHost implements CodeHost {
  private readonly octokit: Octokit;

  constructor(options: GitHubOptions) {
    this.octokit = new Octokit({
      auth: options.token,
      baseUrl: (options.apiUrl ?? 'https://api.github.com').replace(/\/$/, ''),
      userAgent: 'svc-codehost',
      request: { timeout: options.timeoutMs ?? 10_000, retries: 0 },
      // The client's default logger would print warnings with request details; ours says nothing.
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    });
  }

  listRepositories(offset: number, limit: number): Promise<Slice<Repository>> {
    return this.byOffset(offset, limit, async (page) => {
      const res = await this.call('the repositories', () =>
        this.octokit.rest.repos.listForAuthenticatedUser({ per_page: GITHUB_PAGE, page, sort: 'full_name', direction: 'asc' }),
      );
      return { items: res.data.map(toRepository), hasNext: hasNext(res.headers.link) };
    });
  }

  async getRepository(fullName: string): Promise<Repository> {
    const [owner, repo] = checkFullName(fullName);
    const res = await this.call(fullName, () => this.octokit.rest.repos.get({ owner, repo }));
    return toRepository(res.data);
  }

  listBranches(fullName: string, offset: number, limit: number): Promise<Slice<string>> {
    const [owner, repo] = checkFullName(fullName);
    return this.byOffset(offset, limit, async (page) => {
      const res = await this.call(fullName, () => this.octokit.rest.repos.listBranches({ owner, repo, per_page: GITHUB_PAGE, page }));
      return { items: res.data.map((b) => b.name), hasNext: hasNext(res.headers.link) };
    });
  }

  async resolveRef(fullName: string, ref: string): Promise<string | null> {
    const [owner, repo] = checkFullName(fullName);
    const checked = checkRef(ref);
    try {
      const res = await this.call(fullName, () => this.octokit.rest.repos.getCommit({ owner, repo, ref: checked, per_page: 1 }));
      return res.data.sha;
    } catch (error) {
      // 404: no such commit; 422: a ref that names nothing ("No commit found for SHA").
      if (error instanceof CodeHostError && (error.code === 'NOT_FOUND' || error.code === 'INVALID_ARGUMENT')) {
        await this.getRepository(fullName); // an unknown repository stays NOT_FOUND
        return null;
      }
      throw error;
    }
  }

  async isAncestor(fullName: string, ancestor: string, descendant: string): Promise<boolean> {
    const comparison = await this.compare(fullName, ancestor, descendant);
    // GitHub's statuses: "identical" and "ahead" mean base is reachable from head.
    return comparison !== null && (comparison.status === 'identical' || comparison.status === 'ahead');
  }

  async commitsBetween(fullName: string, base: string, head: string, limit: number): Promise<Commit[]> {
    const comparison = await this.compare(fullName, base, head);
    if (comparison === null) throw new CodeHostError('NOT_FOUND', `'${base}' or '${head}' names no commit in ${fullName}`);
    // GitHub lists the compared commits oldest first; the port answers newest first.
    return comparison.commits
      .slice(-Math.min(limit, COMPARE_MAX_COMMITS))
      .reverse()
      .map((c) => ({
        sha: c.sha,
        subject: c.commit.message.split('\n', 1)[0],
        author: c.commit.author?.name ?? '',
        time: new Date(c.commit.author?.date ?? 0).toISOString(),
      }));
  }

  async listDirectory(fullName: string, ref: string, directory: string): Promise<TreeEntry[]> {
    const request = { ...this.repoArgs(fullName), path: checkPath(directory), ref: checkRef(ref) };
    const res = await this.call(fullName, () => this.octokit.rest.repos.getContent(request));
    if (!Array.isArray(res.data)) throw new CodeHostError('NOT_FOUND', `${fullName} has no directory '${directory}' at ${ref}`);
    return res.data
      .filter((e) => e.type === 'file' || e.type === 'dir')
      .map((e): TreeEntry => ({ name: e.name, path: e.path, type: e.type === 'dir' ? 'dir' : 'file' }))
      .sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  }

  async readFile(fullName: string, ref: string, filePath: string, maxBytes: number): Promise<{ text: string; truncated: boolean } | null> {
    const request = { ...this.repoArgs(fullName), path: checkPath(filePath), ref: checkRef(ref) };
    let raw: unknown;
    try {
      // The raw media type answers the file's bytes whatever its size (the JSON form stops at 1 MB).
      raw = (await this.call(fullName, () => this.octokit.rest.repos.getContent({ ...request, mediaType: { format: 'raw' } }))).data;
    } catch (error) {
      if (error instanceof CodeHostError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
    if (typeof raw !== 'string') return null; // a directory
    const bytes = Buffer.from(raw, 'utf8');
    return { text: bytes.subarray(0, maxBytes).toString('utf8'), truncated: bytes.length > maxBytes };
  }

  async listCommits(fullName: string, ref: string, limit: number): Promise<Commit[]> {
    const request = { ...this.repoArgs(fullName), sha: checkRef(ref), per_page: Math.max(1, Math.min(GITHUB_PAGE, Math.floor(limit))) };
    if (limit <= 0) return [];
    const res = await this.call(fullName, () => this.octokit.rest.repos.listCommits(request)).catch(async (error: unknown) => {
      // A `sha` naming nothing is a 404 (as an unknown repository is) or a 422.
      if (!(error instanceof CodeHostError) || (error.code !== 'NOT_FOUND' && error.code !== 'INVALID_ARGUMENT')) throw error;
      await this.getRepository(fullName);
      throw new CodeHostError('NOT_FOUND', `'${ref}' names no commit in ${fullName}`);
    });
    return res.data.slice(0, limit).map((c) => ({
      sha: c.sha,
      subject: c.commit.message.split('\n', 1)[0],
      author: c.commit.author?.name ?? '',
      time: new Date(c.commit.author?.date ?? 0).toISOString(),
    }));
  }

  /**
   * GitHub's code search (GET /search/code, which reads the default branch only) with the query as
   * one quoted phrase in `repo:`, and the text-match media type for the fragments. One page of at
   * most 100 files; each file's content fragments are its matches.
   */
  async searchCode(fullName: string, query: string, options: { maxMatches: number; path?: string }): Promise<CodeSearchResult> {
    const [owner, repo] = checkFullName(fullName);
    const phrase = checkSearchQuery(query).replace(/\\/g, '\\\\').replace(/"/g, '\\"');
    const prefix = options.path === undefined ? '' : checkPath(options.path);
    const q = `"${phrase}" repo:${owner}/${repo}${prefix === '' ? '' : ` path:${prefix}`}`;
    const res = await this.call(fullName, () =>
      this.octokit.rest.search.code({ q, per_page: Math.max(1, Math.min(GITHUB_PAGE, options.maxMatches)), mediaType: { format: 'text-match' } }),
    );
    const matches: CodeMatch[] = [];
    let truncated = res.data.incomplete_results || res.data.total_count > res.data.items.length;
    for (const item of res.data.items) {
      const fragments = (item.text_matches ?? []).filter((m) => m.property === 'content' && typeof m.fragment === 'string');
      for (const fragment of fragments.length > 0 ? fragments : [{ fragment: '' }]) {
        if (matches.length >= options.maxMatches) {
          truncated = true;
          break;
        }
        matches.push({ path: item.path, line: null, text: matchText(fragment.fragment ?? '') });
      }
    }
    return { matches, truncated };
  }

  // ------------------------------------------------------------------ internals

  private async compare(fullName: string, base: string, head: string) {
    const request = { ...this.repoArgs(fullName), basehead: `${checkRef(base)}...${checkRef(head)}`, per_page: COMPARE_MAX_COMMITS };
    try {
      const res = await this.call(fullName, () => this.octokit.rest.repos.compareCommitsWithBasehead(request));
      return res.data;
    } catch (error) {
      if (error instanceof CodeHostError && error.code === 'NOT_FOUND') {
        await this.getRepository(fullName);
        return null;
      }
      throw error;
    }
  }

  /** Checked before any call, so a bad name is INVALID_ARGUMENT rather than a host fault. */
  private repoArgs(fullName: string): { owner: string; repo: string } {
    const [owner, repo] = checkFullName(fullName);
    return { owner, repo };
  }

  /** Offset paging over GitHub's numbered pages of GITHUB_PAGE items. */
  private async byOffset<T>(offset: number, limit: number, fetchPage: (page: number) => Promise<{ items: T[]; hasNext: boolean }>): Promise<Slice<T>> {
    const items: T[] = [];
    let page = Math.floor(offset / GITHUB_PAGE) + 1;
    let skip = offset % GITHUB_PAGE;
    for (;;) {
      const { items: got, hasNext: more } = await fetchPage(page);
      const rest = got.slice(skip);
      const taken = rest.slice(0, limit - items.length);
      items.push(...taken);
      if (items.length >= limit) return { items, next: rest.length > taken.length || more ? offset + items.length : null };
      if (!more) return { items, next: null };
      page += 1;
      skip = 0;
    }
  }

  /** Runs a client call, mapping GitHub's statuses onto the port's codes. */
  private async call<T>(subject: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      if (status === 404) throw new CodeHostError('NOT_FOUND', `${subject}: not found on GitHub`);
      if (status === 422) throw new CodeHostError('INVALID_ARGUMENT', `${subject}: GitHub could not process the request`);
      if (status === 401) throw new CodeHostError('PERMISSION_DENIED', `${subject}: GitHub refused the connection's credentials`);
      if (status === 403) {
        const remaining = (error as { response?: { headers?: Record<string, string> } }).response?.headers?.['x-ratelimit-remaining'];
        if (remaining === '0') throw new CodeHostError('UNAVAILABLE', `${subject}: GitHub's rate limit is exhausted`);
        throw new CodeHostError('PERMISSION_DENIED', `${subject}: the connection may not read this on GitHub`);
      }
      throw new CodeHostError('UNAVAILABLE', `${subject}: GitHub did not answer (${typeof status === 'number' ? `status ${status}` : 'no response'})`);
    }
  }

  // ------------------------------------------------------------------ pull requests

  /** https://docs.github.com/rest/pulls/pulls#get-a-pull-request */
  async getPullRequest(fullName: string, number: number): Promise<PullRequest> {
    const request = { ...this.repoArgs(fullName), pull_number: checkPullNumber(number) };
    const { data } = await this.call(`${fullName}#${number}`, () => this.octokit.rest.pulls.get(request));
    const merged = data.merged === true || (data.merged_at ?? null) !== null;
    return {
      number: data.number,
      url: data.html_url,
      title: data.title,
      body: data.body ?? '',
      state: data.state === 'closed' ? 'closed' : 'open',
      merged,
      headSha: data.head.sha,
      // Before a merge merge_commit_sha is GitHub's test merge commit, which never lands.
      mergeSha: merged ? (data.merge_commit_sha ?? null) : null,
      authorLogin: data.user?.login ?? '',
      authorId: data.user ? String(data.user.id) : '',
    };
  }

  /** https://docs.github.com/rest/issues/comments#create-an-issue-comment (a pull request is an issue) */
  async postComment(fullName: string, number: number, body: string): Promise<PullRequestComment> {
    const request = { ...this.repoArgs(fullName), issue_number: checkPullNumber(number), body: checkCommentBody(body) };
    const { data } = await this.call(`${fullName}#${number}`, () => this.octokit.rest.issues.createComment(request));
    return { id: String(data.id), url: data.html_url, body: data.body ?? '' };
  }

  /** https://docs.github.com/rest/issues/comments#update-an-issue-comment */
  async editComment(fullName: string, commentId: string, body: string): Promise<PullRequestComment> {
    const request = { ...this.repoArgs(fullName), comment_id: Number(checkCommentId(commentId)), body: checkCommentBody(body) };
    const { data } = await this.call(`${fullName} comment ${commentId}`, () => this.octokit.rest.issues.updateComment(request));
    return { id: String(data.id), url: data.html_url, body: data.body ?? '' };
  }
}

function toRepository(r: RepoRecord): Repository {
  return { fullName: r.full_name, defaultBranch: r.default_branch ?? '', private: r.private };
}

/** Whether a Link header (RFC 8288, as GitHub sends it) has a `rel="next"` link. */
function hasNext(link: string | undefined): boolean {
  return link !== undefined && link.split(',').some((part) => /;\s*rel="next"/.test(part));
}
