import { randomUUID } from 'node:crypto';
import { incidentIoSignature, parseIncidentIoWebhook, verifyIncidentIoWebhook } from '@svc/infrastructure/integrations/incidentmgr/incident-io-webhooks';
import { IncidentIoManager } from '@svc/infrastructure/integrations/incidentmgr/incident-io.incidentmgr';
import { FakeIncidentIo } from '../support/fake-incident-io';
import { describeIncidentManagerContract } from './incidentmgr.contract';

const API_KEY = 'inc_contract_api_key_0123';
const SECRET = `whsec_${Buffer.from('incident.io contract signing key').toString('base64')}`;

/** `public_incident.incident_created_v2` as https://docs.incident.io/api-reference/webhooks shows it. */
function createdEvent() {
  return {
    event_type: 'public_incident.incident_created_v2',
    'public_incident.incident_created_v2': {
      id: '01FDAG4SAP5TYPT98WGR2N7W91',
      reference: 'INC-123',
      name: 'Our database is sad',
      permalink: 'https://app.incident.io/incidents/123',
      incident_status: { id: '01FCNDV6P870EA6S7TK1DSYDG0', name: 'Triage', category: 'triage' },
      visibility: 'public',
    },
  };
}

describeIncidentManagerContract('incident.io API v2 (fetch, against a local server answering as incident.io documents)', async () => {
  const fake = new FakeIncidentIo(API_KEY);
  const apiUrl = await fake.start();
  return {
    manager: (options = {}) => new IncidentIoManager({ connection: 'connections/incidents', apiKey: options.apiKey ?? API_KEY, apiUrl }),
    apiKey: API_KEY,
    requestCount: () => fake.requests.length,
    set: ({ rateLimited, requireSeverity }) => {
      if (rateLimited !== undefined) fake.rateLimited = rateLimited;
      if (requireSeverity !== undefined) fake.requireSeverity = requireSeverity;
    },
    delivery: (secret, at = Math.floor(Date.now() / 1000)) => {
      const raw = JSON.stringify(createdEvent());
      const id = `msg_${randomUUID()}`;
      const timestamp = String(at);
      return { raw, headers: { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,bm90IGl0 ${incidentIoSignature(secret, id, timestamp, raw)}` } };
    },
    secret: SECRET,
    verify: (secret, headers, raw) => verifyIncidentIoWebhook({ secret, headers, body: raw, nowMs: Date.now() }),
    parse: parseIncidentIoWebhook,
    close: () => fake.stop(),
  };
});
