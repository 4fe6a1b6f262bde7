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
 * - errors as `{message, documentation_url}`; 401 `Bad credentials` without the expected token.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CodeHostError } from '@svc/infrastructure/integrations/codehost/codehost.port';
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
    if (parts[0] !== 'repos' || parts.length < 3) return send(res, 404, { message: 'Not Found', documentation_url: DOCS });
    const fullName = `${parts[1]}/${parts[2]}`;
    const rest = parts.slice(3);
    if (rest.length === 0) return send(res, 200, repoJson(await this.git.getRepository(fullName)));
    if (rest[0] === 'branches') {
      const slice = await this.git.listBranches(fullName, offset, perPage);
      const branches = await Promise.all(slice.items.map(async (name) => ({ name, commit: { sha: await this.git.resolveRef(fullName, name), url: '' }, protected: false })));
      return send(res, 200, branches, linkHeader(url, page, slice.next !== null));
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
    send(res, 404, { message: 'Not Found', documentation_url: DOCS });
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
