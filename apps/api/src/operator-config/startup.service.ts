import { Inject, Injectable, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import { applyOperatorConfig } from '@svc/application/config/apply';
import type { Settings } from '@svc/infrastructure/config/env';
import { loadOperatorConfig, type OperatorConfig, parseOperatorConfig } from '@svc/infrastructure/config/operator-config';
import { SecretBox } from '@svc/infrastructure/config/secrets';
import { positionToString } from '@svc/infrastructure/event-store/event-store.port';
import { READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';

export interface DemoCredentials {
  organization: string;
  username: string;
  password: string;
}

/** What the api knows about its own start: configuration applied, where, and the demo key if any. */
@Injectable()
export class StartupState {
  ready = false;
  configPosition: string | null = null;
  /** `created`: this start made the demo organization's key pair (the only start that prints its secret). */
  demo: (DemoCredentials & { created: boolean; file: string }) | null = null;
}

/**
 * Applies the operator configuration (SVC_CONFIG) before the api serves; with none, a demo
 * organization whose API key pair is kept in the data directory (printed once, when it is created).
 */
@Injectable()
export class StartupService implements OnApplicationBootstrap {
  private readonly logger = new Logger('startup');

  constructor(
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly bus: CommandBus,
    private readonly state: StartupState,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const config = this.settings.configFile ? loadOperatorConfig(this.settings.configFile) : this.demoConfig();
    const secrets = SecretBox.fromEnvironment(this.settings.dataDir);
    const result = await applyOperatorConfig(config, { bus: this.bus, reads: this.reads, secrets });
    this.state.configPosition = result.position ? positionToString(result.position) : null;
    this.logger.log(`operator configuration applied: ${result.changes} change(s), ${config.organizations.length} organization(s)`);
    this.state.ready = true;
  }

  private demoConfig(): OperatorConfig {
    const file = path.join(this.settings.dataDir, 'demo-credentials.json');
    fs.mkdirSync(this.settings.dataDir, { recursive: true });
    let demo: DemoCredentials;
    const created = !fs.existsSync(file);
    if (!created) {
      demo = JSON.parse(fs.readFileSync(file, 'utf8')) as DemoCredentials;
    } else {
      demo = { organization: 'demo', username: 'demo-admin', password: randomBytes(18).toString('base64url') };
      fs.writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
    }
    this.state.demo = { ...demo, created, file };
    return parseOperatorConfig({
      organizations: [
        {
          id: demo.organization,
          display_name: 'Demo organization',
          members: [{ user: 'demo', roles: ['admin'], api_keys: [`${demo.username}:${demo.password}`] }],
        },
      ],
    });
  }
}

@Module({ providers: [StartupState, StartupService], exports: [StartupState] })
export class StartupModule {}
