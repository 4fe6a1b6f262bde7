/**
 * A local stand-in for the GitHub REST API, answering the endpoints the GitHub code host calls with
 * the shapes and statuses GitHub's REST reference documents, over real git repositories (read with
 * the local-git host, so both adapters are checked against the same history):
 * - GET /user/repos (https://docs.github.com/rest/repos/repos#list-repositories-for-the-authenticated-user):
 *   `per_page` (max 100), `page`, `sort=full_name`; a `Link` header with `rel="next"` while pages remain;
 * - GET /repos/{owner}/{repo} (#get-a-repository): `full_name`, `default_branch`, `private`, `owner.login`;
 * - GET /repos/{owner}/{repo}/branches (https://docs.github.com/rest/branches/branches#list-branches):
 *   `[{name, commit: {sha, url}, protected}]`, paged as above;
 * - GET /repos/{owner}/{repo}/commits/{ref} (https://docs.github.com/rest/commits/commits#get-a-commit):
 *   422 `No commit found for SHA: …` for a ref naming nothing;
 * - GET /repos/{owner}/{repo}/compare/{base}...{head} (#compare-two-commits): `status` one of
 *   ahead, behind, identical, diverged, `commits` oldest first; 404 when either side is unknown;
 * - GET /repos/{owner}/{repo}/contents/{path}?ref= (https://docs.github.com/rest/repos/contents#get-repository-content):
 *   a directory as a JSON array of `{name, path, type, sha, size}`; a file's bytes with
 *   `Accept: application/vnd.github.raw+json`;
 * - GET /repos/{owner}/{repo}/commits?sha= (https://docs.github.com/rest/commits/commits#list-commits):
 *   newest first, `[{sha, commit: {message, author: {name, email, date}}}]`, paged as above; 404 for a
 *   `sha` naming nothing;
 * - GET /search/code (https://docs.github.com/rest/search/search#search-code): `q` holds terms and
 *   qualifiers (`repo:`, `path:`; a quoted phrase with `\"` and `\\` escapes), only the default branch is
 *   searched, case-insensitively; answers `{total_count, incomplete_results, items}` with one item per file
 *   (`name, path, sha, url, git_url, html_url, repository, score`) and, with the `text-match` media type,
 *   `text_matches: [{object_url, object_type: 'FileContent', property: 'content', fragment, matches:
 *   [{text, indices}]}]` (https://docs.github.com/rest/search/search#text-match-metadata); 422
 *   `Validation Failed` for a query without a search term;
 * - GET /repos/{owner}/{repo}/pulls/{pull_number} (https://docs.github.com/rest/pulls/pulls#get-a-pull-request):
 *   `number`, `html_url`, `state` (open, closed), `title`, `body` (null when empty), `user {login, id}`,
 *   `head {ref, sha}`, `base {ref}`, `merged`, `merged_at`, and `merge_commit_sha`, which before a merge
 *   is the sha of GitHub's test merge commit (never on a branch) and after it the merge commit's;
 * - POST /repos/{owner}/{repo}/issues/{issue_number}/comments
 *   (https://docs.github.com/rest/issues/comments#create-an-issue-comment): `{body}` in, 201 with
 *   `{id, node_id, url, html_url, body, user, created_at, updated_at}`; a pull request is an issue, so
 *   its number is accepted; 404 for a number with neither;
 * - PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}
 *   (https://docs.github.com/rest/issues/comments#update-an-issue-comment): `{body}` in, 200 with the
 *   comment; 404 when it does not exist;
 *   pull requests and comments are the local-git host's records (local-pull-requests.ts), so a test
 *   opens one the same way for both adapters;
 * - errors as `{message, documentation_url}`; 401 `Bad credentials` without the expected token.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CodeHostError, type PullRequest, type PullRequestComment } from '@svc/infrastructure/integrations/codehost/codehost.port';
import { LocalGitCodeHost } from '@svc/infrastructure/integrations/codehost/local-git.codehost';

const DOCS = 'https://docs.github.com/rest';

export class FakeGitHub {
  private server?: Server;
  private readonly git: LocalGitCodeHost;
  /** Requests seen, for tests that check what reached the host. */
  readonly requests: Array<{ method: string; path: string; authorization?: string }> = [];

  constructor(
    root: string,
    private readonly token: string,
  ) {
    this.git = new LocalGitCodeHost({ root });
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname, authorization: req.headers.authorization });
    const auth = req.headers.authorization ?? '';
    if (auth !== `token ${this.token}` && auth !== `Bearer ${this.token}`) return send(res, 401, { message: 'Bad credentials', documentation_url: DOCS });
    try {
      await this.route(url, req, res);
    } catch (error) {
      if (error instanceof CodeHostError && error.code === 'NOT_FOUND') return send(res, 404, { message: 'Not Found', documentation_url: DOCS });
      send(res, 500, { message: (error as Error).message });
    }
  }

  private async route(url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
    const offset = (page - 1) * perPage;
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (url.pathname === '/user/repos') {
      const slice = await this.git.listRepositories(offset, perPage);
      return send(res, 200, slice.items.map(repoJson), linkHeader(url, page, slice.next !== null));
    }
    if (url.pathname === '/search/code') return this.searchCode(url, req, res, perPage, page);
    if (parts[0] !== 'repos' || parts.length < 3) return send(res, 404, { message: 'Not Found', documentation_url: DOCS });
    const fullName = `${parts[1]}/${parts[2]}`;
    const rest = parts.slice(3);
    if (rest.length === 0) return send(res, 200, repoJson(await this.git.getRepository(fullName)));
    if (rest[0] === 'branches') {
      const slice = await this.git.listBranches(fullName, offset, perPage);
      const branches = await Promise.all(slice.items.map(async (name) => ({ name, commit: { sha: await this.git.resolveRef(fullName, name), url: '' }, protected: false })));
      return send(res, 200, branches, linkHeader(url, page, slice.next !== null));
    }
    if (rest[0] === 'commits' && rest.length === 1) {
      const sha = url.searchParams.get('sha') ?? (await this.git.getRepository(fullName)).defaultBranch;
      if ((await this.git.resolveRef(fullName, sha)) === null) return send(res, 404, { message: `No commit found for SHA: ${sha}`, documentation_url: DOCS });
      const commits = (await this.git.listCommits(fullName, sha, offset + perPage + 1)).slice(offset);
      const body = commits.slice(0, perPage).map((c) => ({ sha: c.sha, commit: { message: c.subject, author: { name: c.author, email: 'ada@example.com', date: c.time } } }));
      return send(res, 200, body, linkHeader(url, page, commits.length > perPage));
    }
    if (rest[0] === 'commits' && rest.length === 2) {
      const sha = await this.git.resolveRef(fullName, rest[1]);
      if (sha === null) return send(res, 422, { message: `No commit found for SHA: ${rest[1]}`, documentation_url: DOCS });
      return send(res, 200, { sha, commit: { message: '' } });
    }
    if (rest[0] === 'compare' && rest.length === 2) {
      const [base, head] = rest[1].split('...');
      const [b, h] = await Promise.all([this.git.resolveRef(fullName, base), this.git.resolveRef(fullName, head)]);
      if (b === null || h === null) return send(res, 404, { message: 'Not Found', documentation_url: DOCS });
      const [forward, backward] = await Promise.all([this.git.isAncestor(fullName, b, h), this.git.isAncestor(fullName, h, b)]);
      const status = b === h ? 'identical' : forward ? 'ahead' : backward ? 'behind' : 'diverged';
      const commits = (await this.git.commitsBetween(fullName, b, h, 250)).reverse();
      return send(res, 200, {
        status,
        ahead_by: commits.length,
        total_commits: commits.length,
        commits: commits.map((c) => ({ sha: c.sha, commit: { message: c.subject, author: { name: c.author, date: c.time } } })),
      });
    }
    if (rest[0] === 'contents') {
      const path = rest.slice(1).join('/');
      const ref = url.searchParams.get('ref') ?? 'HEAD';
      if ((req.headers.accept ?? '').includes('raw')) {
        const file = await this.git.readFile(fullName, ref, path, 10 * 1024 * 1024);
        if (file !== null) {
          res.writeHead(200, { 'content-type': 'application/vnd.github.raw+json; charset=utf-8' });
          return void res.end(file.text);
        }
      }
      const entries = await this.git.listDirectory(fullName, ref, path);
      return send(res, 200, entries.map((e) => ({ name: e.name, path: e.path, type: e.type, sha: '', size: 0 })));
    }
    if (rest[0] === 'pulls' && rest.length === 2 && req.method === 'GET') return send(res, 200, pullJson(await this.git.getPullRequest(fullName, Number(rest[1])), fullName));
    if (rest[0] === 'issues' && rest.length === 3 && rest[2] === 'comments' && req.method === 'POST') {
      const { body } = (await readJson(req)) as { body?: unknown };
      if (typeof body !== 'string') return send(res, 422, { message: 'Invalid request.\n\n"body" wasn\'t supplied.', documentation_url: DOCS });
      const comment = await this.git.postComment(fullName, Number(rest[1]), body);
      return send(res, 201, commentJson(comment, fullName, Number(rest[1])));
    }
    if (rest[0] === 'issues' && rest[1] === 'comments' && rest.length === 3 && req.method === 'PATCH') {
      const { body } = (await readJson(req)) as { body?: unknown };
      if (typeof body !== 'string') return send(res, 422, { message: 'Invalid request.\n\n"body" wasn\'t supplied.', documentation_url: DOCS });
      const comment = await this.git.editComment(fullName, rest[2], body);
      return send(res, 200, commentJson(comment, fullName, Number(/\/pull\/([0-9]+)#/.exec(comment.url)?.[1] ?? 0)));
    }
    send(res, 404, { message: 'Not Found', documentation_url: DOCS });
  }

  private async searchCode(url: URL, req: IncomingMessage, res: ServerResponse, perPage: number, page: number): Promise<void> {
    const { phrase, repo, path } = parseSearch(url.searchParams.get('q') ?? '');
    if (!phrase || !repo) return send(res, 422, { message: 'Validation Failed', errors: [{ message: 'The search contains no search terms', resource: 'Search', field: 'q', code: 'invalid' }], documentation_url: DOCS });
    const found = await this.git.searchCode(repo, phrase, { maxMatches: 10_000, ...(path ? { path } : {}) });
    const byPath = new Map<string, Array<{ text: string }>>();
    for (const m of found.matches) byPath.set(m.path, [...(byPath.get(m.path) ?? []), m]);
    const files = [...byPath].slice((page - 1) * perPage, page * perPage);
    const textMatch = (req.headers.accept ?? '').includes('text-match');
    const items = files.map(([filePath, lines]) => ({
      name: filePath.split('/').pop(),
      path: filePath,
      sha: '0'.repeat(40),
      url: `https://api.github.com/repositories/1/contents/${filePath}`,
      git_url: 'https://api.github.com/repositories/1/git/blobs/0',
      html_url: `https://github.com/${repo}/blob/main/${filePath}`,
      repository: { id: 1, name: repo.split('/')[1], full_name: repo, private: true, owner: { login: repo.split('/')[0] } },
      score: 1,
      ...(textMatch
        ? {
            text_matches: lines.map((l) => {
              const at = l.text.toLowerCase().indexOf(phrase.toLowerCase());
              return { object_url: '', object_type: 'FileContent', property: 'content', fragment: l.text, matches: [{ text: l.text.slice(at, at + phrase.length), indices: [at, at + phrase.length] }] };
            }),
          }
        : {}),
    }));
    send(res, 200, { total_count: byPath.size, incomplete_results: false, items }, linkHeader(url, page, byPath.size > page * perPage));
  }
}

/** The parts of a code search `q` this stand-in understands: one quoted phrase, `repo:` and `path:`. */
function parseSearch(q: string): { phrase: string | null; repo: string | null; path: string | null } {
  let phrase: string | null = null;
  let rest = q;
  const open = q.indexOf('"');
  if (open >= 0) {
    let text = '';
    let at = open + 1;
    for (; at < q.length && q[at] !== '"'; at++) text += q[at] === '\\' && at + 1 < q.length ? q[++at] : q[at];
    phrase = text;
    rest = q.slice(0, open) + q.slice(at + 1);
  }
  const qualifier = (name: string) => rest.split(' ').find((t) => t.startsWith(`${name}:`))?.slice(name.length + 1) ?? null;
  return { phrase, repo: qualifier('repo'), path: qualifier('path') };
}

/** A pull request in GitHub's shape; the local record's `local-git://` url becomes github.com's. */
function pullJson(pr: PullRequest, fullName: string) {
  return {
    url: `https://api.github.com/repos/${fullName}/pulls/${pr.number}`,
    id: 1000 + pr.number,
    html_url: `https://github.com/${fullName}/pull/${pr.number}`,
    number: pr.number,
    state: pr.state,
    title: pr.title,
    body: pr.body === '' ? null : pr.body,
    user: { login: pr.authorLogin, id: Number(pr.authorId), type: 'User' },
    head: { ref: 'head', sha: pr.headSha },
    base: { ref: 'main' },
    merged: pr.merged,
    merged_at: pr.merged ? '2026-01-01T00:00:00Z' : null,
    // GitHub's test merge commit before a merge: a sha that is on no branch.
    merge_commit_sha: pr.mergeSha ?? 'e'.repeat(40),
  };
}

function commentJson(comment: PullRequestComment, fullName: string, number: number) {
  return {
    id: Number(comment.id),
    node_id: `IC_${comment.id}`,
    url: `https://api.github.com/repos/${fullName}/issues/comments/${comment.id}`,
    html_url: `https://github.com/${fullName}/pull/${number}#issuecomment-${comment.id}`,
    body: comment.body,
    user: { login: 'svc-bot', id: 1, type: 'Bot' },
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    return {};
  }
}

function repoJson(r: { fullName: string; defaultBranch: string; private: boolean }) {
  const [owner, name] = r.fullName.split('/');
  return { id: 1, name, full_name: r.fullName, private: r.private, default_branch: r.defaultBranch, owner: { login: owner } };
}

function linkHeader(url: URL, page: number, more: boolean): Record<string, string> {
  if (!more) return {};
  const next = new URL(url.toString());
  next.searchParams.set('page', String(page + 1));
  return { link: `<${next.toString()}>; rel="next"` };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}
