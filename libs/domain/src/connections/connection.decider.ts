/**
 * A connection: configured by the operator configuration, authorized by an OAuth callback (which
 * seals a token on it, or creates it), and carrying webhook tokens (RegisterPagerWebhook,
 * RegisterIncidentMgrWebhook). Secrets inside `connectionDetails` arrive here already replaced by a
 * reference (`${env:NAME}`) or ciphertext, and webhook tokens only as hashes, so no clear secret
 * ever reaches an event.
 *
 * How the file and OAuth combine (docs/decisions.md, "OAuth and webhook helpers"): the credential
 * field an OAuth callback sealed is laid over the details the file gives, and re-applying the file
 * keeps it, until the file itself changes that field's value (the newest writer of a credential
 * wins). The state keeps what the file last said apart from the connection as served.
 */
import type { Actor, Decider } from '../shared/decider';
import { DomainError, failedPrecondition, invalid, notFound } from '../shared/domain-error';
import { detailsWithCredential, type CredentialPath, credentialOf, sameCredential } from './connection-credential';

export interface Connection {
  name: string;
  displayName: string;
  description: string;
  connectionType: string;
  connectionDetails: Record<string, unknown>;
  toolConfigurations: Array<{ tool: string; enabled: boolean }>;
}

/** The credential an OAuth callback sealed, and which `state` it came with. */
export interface OAuthAuthorization {
  path: CredentialPath;
  /** The `state`'s id and issue time (ms): a state is used once, and never after a newer one. */
  stateId: string;
  issuedAtMs: number;
}

/** Webhook kinds whose tokens a connection keeps. */
export type WebhookKind = 'pager' | 'incidentmgr';

/** How many webhook tokens stay valid: the newest and the one before it (rotation without downtime). */
export const WEBHOOK_TOKENS_KEPT = 2;

export interface ConnectionState {
  /** The connection as served (the file's details with an OAuth credential laid over them). */
  connection: Connection | null;
  /** What the operator configuration last said; null for a connection an OAuth callback created. */
  configured: Connection | null;
  authorization: OAuthAuthorization | null;
  /** Hashes of the valid webhook tokens, newest first. */
  webhookTokens: string[];
}

export type ConnectionEvent =
  | { type: 'ConnectionConfigured'; data: { connection: Connection; createTime: string } }
  /** `configured` is present when it differs from `connection` (an OAuth credential kept over the file). */
  | { type: 'ConnectionReconfigured'; data: { connection: Connection; updateTime: string; configured?: Connection } }
  | {
      type: 'ConnectionAuthorized';
      data: { connection: Connection; time: string; created: boolean; authorization: OAuthAuthorization; authorizedBy: string };
    }
  | {
      type: 'ConnectionWebhookRegistered';
      data: { name: string; kind: WebhookKind; tokenHash: string; retiredTokenHashes: string[]; updateTime: string };
    };

export type ConnectionCommand =
  | { type: 'ConfigureConnection'; actor: Actor; connection: Connection }
  | {
      type: 'AuthorizeConnection';
      actor: Actor;
      /** `connections/{id}`; `create` when the state asked for a new connection. */
      name: string;
      create: boolean;
      connectionType: string;
      path: CredentialPath;
      /** The token, sealed (ciphertext), never clear. */
      sealedToken: string;
      /** The details and display name of a connection this creates (the OAuth app's). */
      details: Record<string, unknown>;
      displayName: string;
      stateId: string;
      issuedAtMs: number;
    }
  | { type: 'RegisterWebhook'; actor: Actor; name: string; kind: WebhookKind; connectionType: string; tokenHash: string };

const CONNECTION_NAME = /^connections\/[a-zA-Z0-9][a-zA-Z0-9_-]{0,62}$/;
const SEALED = /^(enc:v[12]:|\$\{env:)/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

export const connectionDecider: Decider<ConnectionState, ConnectionCommand, ConnectionEvent> = {
  initialState: () => ({ connection: null, configured: null, authorization: null, webhookTokens: [] }),
  evolve(state, event) {
    switch (event.type) {
      case 'ConnectionConfigured':
        return { ...state, connection: event.data.connection, configured: event.data.connection };
      case 'ConnectionReconfigured':
        return {
          ...state,
          connection: event.data.connection,
          configured: event.data.configured ?? event.data.connection,
          // Without `configured`, the file's details are served as they are: the OAuth credential gave way.
          authorization: event.data.configured ? state.authorization : null,
        };
      case 'ConnectionAuthorized':
        return { ...state, connection: event.data.connection, authorization: event.data.authorization };
      case 'ConnectionWebhookRegistered':
        return { ...state, webhookTokens: [event.data.tokenHash, ...state.webhookTokens].slice(0, WEBHOOK_TOKENS_KEPT) };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'ConfigureConnection':
        return configure(command, state);
      case 'AuthorizeConnection':
        return authorize(command, state);
      case 'RegisterWebhook':
        return registerWebhook(command, state);
    }
  },
};

function checkName(name: string): void {
  if (!CONNECTION_NAME.test(name)) throw invalid(`connection name '${name}' is not valid`);
}

function configure(command: Extract<ConnectionCommand, { type: 'ConfigureConnection' }>, state: ConnectionState): ConnectionEvent[] {
  const { connection } = command;
  checkName(connection.name);
  if (!/^CONNECTION_TYPE_[A-Z0-9_]+$/.test(connection.connectionType)) {
    throw invalid(`connection type '${connection.connectionType}' is not valid`);
  }
  if (state.connection === null) {
    return [{ type: 'ConnectionConfigured', data: { connection, createTime: command.actor.now } }];
  }
  if (JSON.stringify(state.configured) === JSON.stringify(connection)) return [];
  const authorization = state.authorization;
  // The OAuth credential stays over the file unless the file now says something else for that field.
  const keep =
    authorization !== null &&
    connection.connectionType === state.connection.connectionType &&
    sameCredential(credentialOf(state.configured?.connectionDetails ?? {}, authorization.path), credentialOf(connection.connectionDetails, authorization.path));
  if (!keep) return [{ type: 'ConnectionReconfigured', data: { connection, updateTime: command.actor.now } }];
  const token = credentialOf(state.connection.connectionDetails, authorization.path);
  const served = { ...connection, connectionDetails: detailsWithCredential(connection.connectionDetails, authorization.path, token) };
  return [{ type: 'ConnectionReconfigured', data: { connection: served, updateTime: command.actor.now, configured: connection } }];
}

function authorize(command: Extract<ConnectionCommand, { type: 'AuthorizeConnection' }>, state: ConnectionState): ConnectionEvent[] {
  checkName(command.name);
  if (!SEALED.test(command.sealedToken)) throw new DomainError('INTERNAL', 'an OAuth token must be sealed before it is recorded');
  const last = state.authorization;
  // A state is used once; an older one never overwrites the credential a newer one sealed.
  if (last !== null && (last.stateId === command.stateId || command.issuedAtMs <= last.issuedAtMs)) {
    throw failedPrecondition('this OAuth state was already used (or a newer authorization completed); start again', 'OAUTH_STATE_USED');
  }
  const authorization: OAuthAuthorization = { path: command.path, stateId: command.stateId, issuedAtMs: command.issuedAtMs };
  const base = { time: command.actor.now, authorization, authorizedBy: command.actor.subject };
  if (command.create) {
    if (state.connection !== null) throw new DomainError('ALREADY_EXISTS', `connection '${command.name}' already exists`);
    const connection: Connection = {
      name: command.name,
      displayName: command.displayName,
      description: '',
      connectionType: command.connectionType,
      connectionDetails: detailsWithCredential(command.details, command.path, command.sealedToken),
      toolConfigurations: [],
    };
    return [{ type: 'ConnectionAuthorized', data: { connection, created: true, ...base } }];
  }
  if (state.connection === null) throw notFound(`connection '${command.name}' not found`);
  if (state.connection.connectionType !== command.connectionType) {
    throw invalid(`${command.name} is not a ${command.connectionType} connection`);
  }
  const connection = { ...state.connection, connectionDetails: detailsWithCredential(state.connection.connectionDetails, command.path, command.sealedToken) };
  return [{ type: 'ConnectionAuthorized', data: { connection, created: false, ...base } }];
}

function registerWebhook(command: Extract<ConnectionCommand, { type: 'RegisterWebhook' }>, state: ConnectionState): ConnectionEvent[] {
  checkName(command.name);
  if (!SHA256_HEX.test(command.tokenHash)) throw new DomainError('INTERNAL', 'a webhook token is recorded only as its SHA-256');
  if (state.connection === null) throw notFound(`connection '${command.name}' not found`);
  if (state.connection.connectionType !== command.connectionType) {
    throw invalid(`${command.name} is not a ${command.connectionType} connection`);
  }
  const retiredTokenHashes = state.webhookTokens.slice(WEBHOOK_TOKENS_KEPT - 1);
  return [
    {
      type: 'ConnectionWebhookRegistered',
      data: { name: command.name, kind: command.kind, tokenHash: command.tokenHash, retiredTokenHashes, updateTime: command.actor.now },
    },
  ];
}
