import type { Provider } from '@nestjs/common';
import { loadSigningKey } from '@svc/infrastructure/auth/session-signing-key';
import { SessionTokens } from '@svc/infrastructure/auth/session-tokens';
import { TrustedIssuers } from '@svc/infrastructure/auth/trusted-issuers';
import type { Settings } from '@svc/infrastructure/config/env';
import { loadOperatorConfig, type OperatorConfig } from '@svc/infrastructure/config/operator-config';
import { resolveEnv } from '@svc/infrastructure/config/secrets';
import { SETTINGS } from '@svc/infrastructure/nest/tokens';
import { AuthLimits } from './auth-limits';

export const BEARER_ISSUERS = Symbol('BEARER_ISSUERS');
export const WORKLOAD_ISSUERS = Symbol('WORKLOAD_ISSUERS');
/** `machine_credentials` pairs (`username:secret`, resolved), for the internal webhook endpoints. */
export const MACHINE_CREDENTIALS = Symbol('MACHINE_CREDENTIALS');
/** The organization claim of each bearer issuer. */
export const ORG_CLAIMS = Symbol('ORG_CLAIMS');
const ISSUERS_CONFIG = Symbol('ISSUERS_CONFIG');

/**
 * The trusted issuers come from the operator configuration (read again here: the startup service
 * applies the organizations, this reads only the issuers); the session-token signing key from
 * SVC_SESSION_SIGNING_KEY or the data directory. A bad key or setting stops the api at start.
 */
export const AUTH_PROVIDERS: Provider[] = [
  {
    provide: ISSUERS_CONFIG,
    useFactory: (settings: Settings): Pick<OperatorConfig, 'bearerIssuers' | 'workloadIssuers' | 'machineCredentials'> => {
      if (!settings.configFile) return { bearerIssuers: [], workloadIssuers: [], machineCredentials: [] };
      const config = loadOperatorConfig(settings.configFile);
      // Keys may be written as ${env:NAME}; an unset variable stops the start, naming it.
      const resolved = <T extends { publicKeyPem: string }>(issuer: T): T => ({ ...issuer, publicKeyPem: resolveEnv(issuer.publicKeyPem) });
      const machineCredentials = config.machineCredentials.map((pair) => resolveEnv(pair));
      for (const pair of machineCredentials) if (pair.indexOf(':') <= 0) throw new Error("machine_credentials: each entry must be a 'username:secret' pair");
      return { bearerIssuers: config.bearerIssuers.map(resolved), workloadIssuers: config.workloadIssuers.map(resolved), machineCredentials };
    },
    inject: [SETTINGS],
  },
  {
    provide: BEARER_ISSUERS,
    useFactory: (config: Pick<OperatorConfig, 'bearerIssuers'>) => new TrustedIssuers(config.bearerIssuers, 'bearer issuer'),
    inject: [ISSUERS_CONFIG],
  },
  {
    provide: ORG_CLAIMS,
    useFactory: (config: Pick<OperatorConfig, 'bearerIssuers'>) => new Map(config.bearerIssuers.map((b) => [b.issuer, b.orgClaim])),
    inject: [ISSUERS_CONFIG],
  },
  {
    provide: WORKLOAD_ISSUERS,
    useFactory: (config: Pick<OperatorConfig, 'workloadIssuers'>) => new TrustedIssuers(config.workloadIssuers, 'workload issuer'),
    inject: [ISSUERS_CONFIG],
  },
  {
    provide: MACHINE_CREDENTIALS,
    useFactory: (config: Pick<OperatorConfig, 'machineCredentials'>) => config.machineCredentials,
    inject: [ISSUERS_CONFIG],
  },
  {
    provide: AuthLimits,
    useFactory: (settings: Settings) => new AuthLimits(settings.authLimits),
    inject: [SETTINGS],
  },
  {
    provide: SessionTokens,
    useFactory: async (settings: Settings) =>
      new SessionTokens(await loadSigningKey({ env: process.env, dataDir: settings.dataDir, serverStores: Boolean(settings.eventStoreUrl || settings.mongoUrl) })),
    inject: [SETTINGS],
  },
];
