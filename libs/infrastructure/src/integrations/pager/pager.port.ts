/**
 * The pager port (issue 21, "Pager, tracker, incident manager, identity provider"): opening an incident
 * on the on-call paging platform a pager connection names. Adapter: PagerDuty Events API v2
 * (pagerduty.pager.ts). The inbound side (the pager's webhooks) is RegisterPagerWebhook's
 * (pager/webhook-signature.ts). Adapters never put a credential (the routing key) in an error.
 */

export type PagerSeverity = 'critical' | 'error' | 'warning' | 'info';
export const PAGER_SEVERITIES: readonly PagerSeverity[] = ['critical', 'error', 'warning', 'info'];

export interface NewPagerIncident {
  /** The incident's title (PagerDuty: `payload.summary`, at most 1024 characters). */
  title: string;
  /** Free text shown with the incident. */
  details?: string;
  severity: PagerSeverity;
  /** What is affected (PagerDuty: `payload.source`). */
  source: string;
  /**
   * The same key opens one incident however often it is sent (PagerDuty's deduplication): a caller
   * that retries sends the same key.
   */
  dedupKey?: string;
  links?: Array<{ href: string; text?: string }>;
}

export interface PagerIncident {
  /** The key the pager correlates later events of this incident by. */
  dedupKey: string;
  /** The pager's own word on the event ("Event processed"). */
  message: string;
}

export interface Pager {
  createIncident(incident: NewPagerIncident): Promise<PagerIncident>;
}

/** PagerDuty's bounds (Events API v2: summary 1024, dedup_key 255 characters). */
export const MAX_PAGER_TITLE = 1024;
export const MAX_PAGER_DEDUP_KEY = 255;
export const MAX_PAGER_DETAILS = 16 * 1024;
