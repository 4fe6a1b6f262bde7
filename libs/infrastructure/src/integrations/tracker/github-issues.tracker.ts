/**
 * GitHub Issues as the tracker, on the official client (`@octokit/rest`) with a token: a ticket is an
 * issue of the connection's repository (`POST /repos/{owner}/{repo}/issues`,
 * https://docs.github.com/rest/issues/issues#create-an-issue: 201 with the issue; 410 when the
 * repository has issues switched off; 422 on validation; 403 with `x-ratelimit-remaining: 0` when the
 * rate limit is spent). The token goes only into the client's Authorization header: errors are rebuilt
 * from the status and GitHub's message, never from the request.
 */
import { Octokit } from '@octokit/rest';
import { scrub, VendorError, vendorStatusError } from '../vendor';
import { MAX_TICKET_BODY, MAX_TICKET_LABELS, MAX_TICKET_TITLE, type NewTicket, type Ticket, type Tracker } from './tracker.port';

export interface GitHubIssuesOptions {
  connection: string;
  /** `owner/repo` */
  repository: string;
  token: string;
  /** `https://api.github.com` (default), a GitHub Enterprise Server's `https://host/api/v3`, or a test server. */
  apiUrl?: string;
  timeoutMs?: number;
}

/** `owner/repo`, each part a plain GitHub name. */
const REPOSITORY = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;

export function isRepositoryName(value: string): boolean {
  return REPOSITORY.test(value) && !value.split('/').some((p) => p === '.' || p === '..');
}

export class GitHubIssuesTracker implements Tracker {
  private readonly octokit: Octokit;
  private readonly subject: string;
  private readonly owner: string;
  private readonly repo: string;

  constructor(private readonly options: GitHubIssuesOptions) {
    if (!isRepositoryName(options.repository)) throw new VendorError('FAILED_PRECONDITION', `${options.connection}: details.tracker.repository must be 'owner/repo'`);
    [this.owner, this.repo] = options.repository.split('/');
    this.subject = `GitHub Issues of ${options.repository} (${options.connection})`;
    this.octokit = new Octokit({
      auth: options.token,
      baseUrl: (options.apiUrl ?? 'https://api.github.com').replace(/\/$/, ''),
      userAgent: 'svc-tracker',
      request: { timeout: options.timeoutMs ?? 10_000, retries: 0 },
      // The client's default logger would print warnings with request details; ours says nothing.
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    });
  }

  async createTicket(ticket: NewTicket): Promise<Ticket> {
    check(ticket);
    try {
      const res = await this.octokit.rest.issues.create({
        owner: this.owner,
        repo: this.repo,
        title: ticket.title,
        ...(ticket.body ? { body: ticket.body } : {}),
        ...(ticket.labels && ticket.labels.length > 0 ? { labels: ticket.labels } : {}),
      });
      return { id: String(res.data.id), key: `#${res.data.number}`, url: res.data.html_url, title: res.data.title, state: res.data.state };
    } catch (error) {
      throw this.failure(error);
    }
  }

  private failure(error: unknown): VendorError {
    if (error instanceof VendorError) return error;
    const e = error as { status?: unknown; response?: { headers?: Record<string, string>; data?: unknown } };
    if (typeof e.status !== 'number') return new VendorError('UNAVAILABLE', `${this.subject} could not be reached`);
    const data = e.response?.data as { message?: unknown; errors?: Array<{ field?: unknown; code?: unknown; message?: unknown }> } | undefined;
    const fields = Array.isArray(data?.errors) ? data.errors.map((x) => [x.field, x.code, x.message].filter((v) => typeof v === 'string').join(' ')).join('; ') : '';
    const detail = [typeof data?.message === 'string' ? data.message : '', fields].filter(Boolean).join(': ');
    if (e.status === 403 && e.response?.headers?.['x-ratelimit-remaining'] === '0') return vendorStatusError(this.subject, 429, '', [this.options.token]);
    return vendorStatusError(this.subject, e.status, scrub(detail, [this.options.token]), [this.options.token]);
  }
}

function check(ticket: NewTicket): void {
  const bad = (why: string) => new VendorError('INVALID_ARGUMENT', why);
  if (typeof ticket.title !== 'string' || ticket.title.trim() === '') throw bad('a ticket needs a title');
  if (ticket.title.length > MAX_TICKET_TITLE) throw bad(`the title is longer than ${MAX_TICKET_TITLE} characters`);
  if (ticket.body !== undefined && ticket.body.length > MAX_TICKET_BODY) throw bad(`the body is longer than ${MAX_TICKET_BODY} characters`);
  if (ticket.labels !== undefined && (ticket.labels.length > MAX_TICKET_LABELS || ticket.labels.some((l) => typeof l !== 'string' || l === '' || l.length > 50))) {
    throw bad(`labels must be at most ${MAX_TICKET_LABELS} names of 1 to 50 characters`);
  }
}
