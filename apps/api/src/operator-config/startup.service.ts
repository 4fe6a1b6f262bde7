import { Inject, Injectable, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { applyOperatorConfig, CONFIG_ACTOR } from '@svc/application/config/apply';
import { PERMISSIONS } from '@svc/contracts/roles/permissions';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { resourceStreamId } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import type { Settings } from '@svc/infrastructure/config/env';
import { loadOperatorConfig, type OperatorConfig, parseOperatorConfig } from '@svc/infrastructure/config/operator-config';
import { SecretBox } from '@svc/infrastructure/config/secrets';
import { positionToString } from '@svc/infrastructure/event-store/event-store.port';
import { READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { DEMO_AGENT_ID, DEMO_CONNECTION_ID, type DemoDatabase, prepareDemoDatabase } from './demo-database';

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
  /**
   * `created`: this start made the demo organization's key pair (the only start that prints its secret).
   * `agent`: the demo agent bound to the sample SQL database, when the machine's PostgreSQL answered.
   */
  demo: (DemoCredentials & { created: boolean; file: string; agent?: string; database?: DemoDatabase }) | null = null;
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
    const database = this.settings.configFile ? null : await prepareDemoDatabase((line) => this.logger.log(line));
    const config = this.settings.configFile ? loadOperatorConfig(this.settings.configFile) : this.demoConfig(database);
    const secrets = SecretBox.fromEnvironment(this.settings.dataDir);
    const result = await applyOperatorConfig(config, { bus: this.bus, reads: this.reads, secrets });
    if (this.state.demo && database) await this.ensureDemoAgent(this.state.demo.organization, database);
    this.state.configPosition = result.position ? positionToString(result.position) : null;
    this.logger.log(`operator configuration applied: ${result.changes} change(s), ${config.organizations.length} organization(s)`);
    this.state.ready = true;
  }

  /**
   * The demo agent that answers from the sample database (created once; later edits are the
   * user's). Sync in `ensure` mode, as the configuration's seeds are.
   */
  private async ensureDemoAgent(org: string, database: DemoDatabase): Promise<void> {
    const name = `agents/${DEMO_AGENT_ID}`;
    const actor = { org, actor: CONFIG_ACTOR, subject: CONFIG_ACTOR, permissions: [...PERMISSIONS], now: new Date().toISOString() };
    await this.bus.execute(
      new DecideAndAppend({
      decider: resourceDecider(agentSpec),
      streamId: resourceStreamId(agentSpec, org, name),
      command: {
        type: 'Sync',
        actor,
        id: DEMO_AGENT_ID,
        mode: 'ensure',
        resource: {
          title: 'Sample orders analyst',
          description: `Answers from the sample orders database (PostgreSQL ${database.database} on ${database.host}:${database.port}).`,
          prompt: 'You answer questions about orders from the connected database. Query it; never guess numbers.',
          connections: [{ name: `connections/${DEMO_CONNECTION_ID}`, enabledTools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_LIST_TABLES', 'TOOL_SQLDB_DESCRIBE_TABLE'] }],
        },
      },
      context: { actor },
      }),
    );
    if (this.state.demo) this.state.demo = { ...this.state.demo, agent: name, database };
  }

  private demoConfig(database: DemoDatabase | null): OperatorConfig {
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
          connections: database
            ? [
                {
                  id: DEMO_CONNECTION_ID,
                  display_name: 'Sample orders (PostgreSQL)',
                  description: `The sample database ${database.database} on ${database.host}:${database.port}`,
                  type: 'CONNECTION_TYPE_SQLDB',
                  details: { sqldb: { driver: 'postgres', host: database.host, port: database.port, database: database.database, username: database.username, ssl_mode: 'disable' } },
                  tools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_LIST_TABLES', 'TOOL_SQLDB_DESCRIBE_TABLE'].map((tool) => ({ tool, enabled: true })),
                },
              ]
            : [],
        },
      ],
    });
  }
}

@Module({ providers: [StartupState, StartupService], exports: [StartupState] })
export class StartupModule {}
