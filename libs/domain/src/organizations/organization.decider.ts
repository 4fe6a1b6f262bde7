/**
 * What the API cannot create: the organization itself, its service accounts and the API key pairs
 * of its members, all from operator configuration (spec/operator-config.md). One stream per
 * organization, plus one per API key so a rotated key is its own short history.
 */
import type { Actor, Decider } from '../shared/decider';
import { invalid } from '../shared/domain-error';

export const ORGANIZATION_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

export interface OrganizationState {
  exists: boolean;
  displayName: string;
  serviceAccounts: string[];
}

export type OrganizationEvent =
  | { type: 'OrganizationCreated'; data: { organization: string; displayName: string; createTime: string } }
  | { type: 'OrganizationRenamed'; data: { displayName: string; updateTime: string } }
  | { type: 'ServiceAccountAdded'; data: { serviceAccount: string } };

export type OrganizationCommand =
  | { type: 'ConfigureOrganization'; actor: Actor; organizationId: string; displayName: string }
  | { type: 'AddServiceAccount'; actor: Actor; serviceAccountId: string };

const PRINCIPAL_ID = /^[a-zA-Z0-9][a-zA-Z0-9._@-]{0,127}$/;

export const organizationDecider: Decider<OrganizationState, OrganizationCommand, OrganizationEvent> = {
  initialState: () => ({ exists: false, displayName: '', serviceAccounts: [] }),
  // In place (decider.ts, the fold contract): the service-account list is not copied per event.
  evolve(state, event) {
    switch (event.type) {
      case 'OrganizationCreated':
        state.exists = true;
        state.displayName = event.data.displayName;
        return state;
      case 'OrganizationRenamed':
        state.displayName = event.data.displayName;
        return state;
      case 'ServiceAccountAdded':
        state.serviceAccounts.push(event.data.serviceAccount);
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'ConfigureOrganization': {
        if (!ORGANIZATION_ID.test(command.organizationId)) {
          throw invalid(`organization id '${command.organizationId}' must match ${ORGANIZATION_ID.source}`);
        }
        if (!state.exists) {
          return [
            {
              type: 'OrganizationCreated',
              data: {
                organization: `organizations/${command.organizationId}`,
                displayName: command.displayName,
                createTime: command.actor.now,
              },
            },
          ];
        }
        if (state.displayName === command.displayName) return [];
        return [{ type: 'OrganizationRenamed', data: { displayName: command.displayName, updateTime: command.actor.now } }];
      }
      case 'AddServiceAccount': {
        if (!PRINCIPAL_ID.test(command.serviceAccountId)) {
          throw invalid(`service account id '${command.serviceAccountId}' is not valid`);
        }
        const name = `service-accounts/${command.serviceAccountId}`;
        if (state.serviceAccounts.includes(name)) return [];
        return [{ type: 'ServiceAccountAdded', data: { serviceAccount: name } }];
      }
    }
  },
};

export interface ApiKeyState {
  principal: string | null;
  secretHash: string | null;
}

export type ApiKeyEvent =
  | { type: 'ApiKeyIssued'; data: { keyId: string; principal: string; secretHash: string; createTime: string } }
  | { type: 'ApiKeyRotated'; data: { principal: string; secretHash: string; updateTime: string } }
  /** The same secret, hashed again at today's cost (secret-hash.ts): the key and its owner are unchanged. */
  | { type: 'ApiKeyRehashed'; data: { secretHash: string; updateTime: string } };

/**
 * IssueApiKey (operator configuration): `hash` makes a fresh slow hash of the configured secret,
 * called only when one is stored; `matches` tells whether the configured secret is the one already
 * stored (the hash is salted, so hashes cannot be compared directly); `outdated` whether that stored
 * hash is weaker than today's cost, so a matching secret is re-hashed.
 *
 * RehashApiKey (a verified request, upgrade on use): stores `secretHash`, a fresh hash of the very
 * secret `replaces` was verified to hold. When the stored hash is no longer `replaces` (the key was
 * rotated, or another request upgraded it first), there is nothing to do: an upgrade happens once.
 * Only hashes reach events, never the secret.
 */
export type ApiKeyCommand =
  | {
      type: 'IssueApiKey';
      actor: Actor;
      keyId: string;
      principal: string;
      hash: () => string;
      matches: (storedHash: string) => boolean;
      outdated?: (storedHash: string) => boolean;
    }
  | { type: 'RehashApiKey'; actor: Actor; replaces: string; secretHash: string };

export const API_KEY_ID = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,127}$/;

export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  initialState: () => ({ principal: null, secretHash: null }),
  evolve(state, event) {
    if (event.type === 'ApiKeyRehashed') return { ...state, secretHash: event.data.secretHash };
    return { principal: event.data.principal, secretHash: event.data.secretHash };
  },
  decide(command, state) {
    if (command.type === 'RehashApiKey') {
      if (state.secretHash !== command.replaces) return [];
      return [{ type: 'ApiKeyRehashed', data: { secretHash: command.secretHash, updateTime: command.actor.now } }];
    }
    if (!API_KEY_ID.test(command.keyId)) throw invalid(`API key id '${command.keyId}' is not valid`);
    if (state.secretHash === null) {
      return [
        {
          type: 'ApiKeyIssued',
          data: { keyId: command.keyId, principal: command.principal, secretHash: command.hash(), createTime: command.actor.now },
        },
      ];
    }
    if (state.principal === command.principal && command.matches(state.secretHash)) {
      if (!command.outdated?.(state.secretHash)) return [];
      return [{ type: 'ApiKeyRehashed', data: { secretHash: command.hash(), updateTime: command.actor.now } }];
    }
    return [
      {
        type: 'ApiKeyRotated',
        data: { principal: command.principal, secretHash: command.hash(), updateTime: command.actor.now },
      },
    ];
  },
};
