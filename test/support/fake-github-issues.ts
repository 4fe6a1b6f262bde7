/**
 * A local stand-in for GitHub's Issues REST API, answering as its reference documents
 * (https://docs.github.com/rest/issues/issues#create-an-issue):
 * - POST /repos/{owner}/{repo}/issues `{title, body?, labels?}`: 201 with the issue
 *   (`id`, `number`, `title`, `body`, `state: "open"`, `html_url`, `labels: [{name}]`, `user.login`);
 * - 401 `{message: "Bad credentials", documentation_url}` without the expected token;
 * - 404 `{message: "Not Found", documentation_url}` for a repository it does not have;
 * - 410 `{message: "Issues are disabled for this repo", documentation_url}` when issues are off;
 * - 422 `{message: "Validation Failed", errors: [{resource: "Issue", code: "missing_field", field: "title"}], documentation_url}`;
 * - `rateLimited = true`: 403 `{message: "API rate limit exceeded for …"}` with `x-ratelimit-remaining: 0`
 *   (https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api).
 */
import { FakeServer, jsonOf, type Answer, type RecordedRequest } from './fake-server';

const DOCS = 'https://docs.github.com/rest/issues/issues#create-an-issue';

export interface FakeIssue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  html_url: string;
  labels: Array<{ name: string }>;
  user: { login: string };
}

export class FakeGitHubIssues extends FakeServer {
  /** Issues by repository. */
  readonly issues = new Map<string, FakeIssue[]>();
  /** Repositories whose issues are switched off. */
  readonly issuesDisabled = new Set<string>();
  rateLimited = false;

  constructor(
    private readonly token: string,
    repositories: readonly string[],
  ) {
    super();
    for (const repository of repositories) this.issues.set(repository, []);
  }

  protected answer(request: RecordedRequest): Answer {
    const auth = request.headers.authorization;
    if (auth !== `token ${this.token}` && auth !== `Bearer ${this.token}`) return { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' } };
    if (this.rateLimited) {
      return {
        status: 403,
        headers: { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600) },
        body: { message: 'API rate limit exceeded for user ID 1.', documentation_url: 'https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting' },
      };
    }
    const match = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(request.path);
    if (request.method !== 'POST' || !match) return { status: 404, body: { message: 'Not Found', documentation_url: DOCS } };
    const repository = `${decodeURIComponent(match[1])}/${decodeURIComponent(match[2])}`;
    const list = this.issues.get(repository);
    if (!list) return { status: 404, body: { message: 'Not Found', documentation_url: DOCS } };
    if (this.issuesDisabled.has(repository)) return { status: 410, body: { message: 'Issues are disabled for this repo', documentation_url: DOCS } };
    const input = jsonOf(request) ?? {};
    if (typeof input.title !== 'string' || input.title === '') {
      return { status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'Issue', code: 'missing_field', field: 'title' }], documentation_url: DOCS } };
    }
    const number = list.length + 1;
    const issue: FakeIssue = {
      id: 1_000_000 + number,
      number,
      title: input.title,
      body: typeof input.body === 'string' ? input.body : null,
      state: 'open',
      html_url: `https://github.com/${repository}/issues/${number}`,
      labels: Array.isArray(input.labels) ? input.labels.map((name) => ({ name: String(name) })) : [],
      user: { login: 'svc-bot' },
    };
    list.push(issue);
    return { status: 201, body: { ...issue, node_id: `I_${number}`, url: `https://api.github.com/repos/${repository}/issues/${number}`, comments: 0, created_at: new Date().toISOString() } };
  }
}
