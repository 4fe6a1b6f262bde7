/**
 * What the integration helpers that change connections share: the `integrations:` section of the
 * operator configuration (read again here, as the auth module reads the issuers), the OAuth apps,
 * the state signer, and the box that seals what they record.
 */
import type { Provider } from '@nestjs/common';
import type { Settings } from '@svc/infrastructure/config/env';
import { type IntegrationsConfig, NO_INTEGRATIONS } from '@svc/infrastructure/config/integrations-config';
import { loadOperatorConfig } from '@svc/infrastructure/config/operator-config';
import { loadMasterKey, SecretBox } from '@svc/infrastructure/config/secrets';
import { OAuthApps } from '@svc/infrastructure/integrations/oauth/oauth-client';
import { OAuthStates } from '@svc/infrastructure/integrations/oauth/oauth-state';
import { SETTINGS } from '@svc/infrastructure/nest/tokens';

export const INTEGRATIONS = Symbol('INTEGRATIONS');
/** Seals OAuth tokens as the configuration's secrets are sealed (SecretBox). */
export const SEALING_BOX = Symbol('SEALING_BOX');

export const INTEGRATION_PROVIDERS: Provider[] = [
  {
    provide: INTEGRATIONS,
    useFactory: (settings: Settings): IntegrationsConfig => (settings.configFile ? loadOperatorConfig(settings.configFile).integrations : NO_INTEGRATIONS),
    inject: [SETTINGS],
  },
  { provide: OAuthApps, useFactory: (integrations: IntegrationsConfig) => new OAuthApps(integrations), inject: [INTEGRATIONS] },
  {
    provide: OAuthStates,
    useFactory: (settings: Settings, integrations: IntegrationsConfig) => new OAuthStates(loadMasterKey(settings.dataDir), integrations.oauth.stateTtlSeconds),
    inject: [SETTINGS, INTEGRATIONS],
  },
  { provide: SEALING_BOX, useFactory: (settings: Settings) => SecretBox.fromEnvironment(settings.dataDir), inject: [SETTINGS] },
];
