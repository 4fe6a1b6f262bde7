/**
 * The tracker port (issue 21): opening a ticket in the issue tracker a tracker connection names, and
 * reading the tracker's webhooks (verified over the raw body, then parsed into a TrackerEvent).
 * Adapter: GitHub Issues (`@octokit/rest`; github-issues.tracker.ts, github-webhooks.ts). Adapters never
 * put a credential in an error.
 */

export interface NewTicket {
  title: string;
  /** Markdown. */
  body?: string;
  labels?: string[];
}

export interface Ticket {
  /** The tracker's own ID of the ticket. */
  id: string;
  /** What people call it (`#42`, `OPS-42`). */
  key: string;
  url: string;
  title: string;
  state: string;
}

export interface Tracker {
  createTicket(ticket: NewTicket): Promise<Ticket>;
}

/** A delivery's headers, names lowercased. */
export type WebhookHeaders = Record<string, string | undefined>;

export type WebhookCheck = 'ok' | 'missing' | 'mismatch';

/** A verified delivery, parsed: what happened to which ticket of which project. */
export interface TrackerEvent {
  /** The tracker's delivery ID (GitHub: X-GitHub-Delivery), when it sends one. */
  delivery: string;
  /** The tracker's event name (`issues`, `issue_comment`, `ping`). */
  kind: string;
  /** What happened (`opened`, `closed`, `edited`, …), '' when the kind has none. */
  action: string;
  /** The project the event belongs to (GitHub: `owner/repo`). */
  project: string;
  /** The ticket, when the event is about one. */
  ticket?: Ticket;
  /** Who did it, as the tracker names them. */
  actor: string;
}

/** Verification and parsing of one tracker product's webhooks (pure: no I/O). */
export interface TrackerWebhooks {
  /** Checks a delivery's signature over its raw body with a connection's webhook secret (constant time). */
  verify(secret: string, headers: WebhookHeaders, rawBody: string | Buffer): WebhookCheck;
  /** The project a delivery names before it is verified: how its candidate connections are found. */
  projectOf(body: Record<string, unknown>): string | undefined;
  parse(headers: WebhookHeaders, body: Record<string, unknown>): TrackerEvent;
}

/** Bounds a ticket the port opens (GitHub's title limit is 256 characters; a body 65,536). */
export const MAX_TICKET_TITLE = 256;
export const MAX_TICKET_BODY = 65_536;
export const MAX_TICKET_LABELS = 20;
