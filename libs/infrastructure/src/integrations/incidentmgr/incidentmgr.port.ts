/**
 * The incident-manager port (issue 21): declaring and reading an incident on the incident-management
 * platform an incident-manager connection names, and reading its webhooks (verified over the raw body,
 * then parsed). Adapter: incident.io's REST API v2 (incident-io.incidentmgr.ts, incident-io-webhooks.ts).
 * Adapters never put a credential in an error.
 */

export interface NewIncident {
  name: string;
  summary?: string;
  /**
   * The same key declares one incident however often it is sent (incident.io de-duplicates on it): a
   * caller that retries sends the same key.
   */
  idempotencyKey: string;
  /** The platform's severity ID; the connection's default when absent. */
  severityId?: string;
}

export interface ManagedIncident {
  id: string;
  /** What people call it (`INC-123`). */
  reference: string;
  name: string;
  summary: string;
  /** The incident's page. */
  url: string;
  /** The status's category (`triage`, `live`, `learning`, `closed`, …). */
  status: string;
  severity: string;
  createTime: string;
}

export interface IncidentManager {
  createIncident(incident: NewIncident): Promise<ManagedIncident>;
  /** NOT_FOUND for an ID the platform does not know. */
  getIncident(id: string): Promise<ManagedIncident>;
}

export type IncidentWebhookCheck = 'ok' | 'missing' | 'stale' | 'mismatch';

/** A verified delivery, parsed. */
export interface IncidentEvent {
  /** The delivery's ID (a retried delivery keeps it). */
  delivery: string;
  /** The platform's event type (`public_incident.incident_created_v2`, …). */
  type: string;
  /** The incident the event is about, as the payload carries it (fields it lacks are ''). */
  incident?: Pick<ManagedIncident, 'id' | 'reference' | 'name' | 'url' | 'status'>;
}

export const MAX_INCIDENT_NAME = 512;
export const MAX_INCIDENT_SUMMARY = 16 * 1024;
export const MAX_IDEMPOTENCY_KEY = 255;
