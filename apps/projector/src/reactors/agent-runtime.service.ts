import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import type { Settings } from '@svc/infrastructure/config/env';
import type { EventStore } from '@svc/infrastructure/event-store/event-store.port';
import { createAgentRuntime, loadRuntimeSettings } from '@svc/infrastructure/integrations/agent-runtime';
import { TurnRunner } from '@svc/infrastructure/integrations/agent-runtime/turn-runner';
import { SecretBox } from '@svc/infrastructure/config/secrets';
import { createToolAdapters } from '@svc/infrastructure/integrations/tools/adapters';
import { loadToolLimits, ToolExecutor } from '@svc/infrastructure/integrations/tools/tool-executor';
import { EVENT_STORE, READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import { NOTIFICATION_BUS, type NotificationBus } from '@svc/infrastructure/notifications/notification-bus.port';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { AgentRuntimeReactor } from './agent-runtime.reactor';

/**
 * Hosts the agent runtime reactor in the projector process, beside (not inside) the projections.
 * The ephemeral notifications of turns go out on the process's one notification bus, which
 * InfrastructureModule opens and closes (after this service has stopped: Nest shuts the global
 * module down last).
 */
@Injectable()
export class AgentRuntimeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('agent-runtime');
  private reactor: AgentRuntimeReactor | null = null;
  private tools: ToolExecutor | null = null;

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(NOTIFICATION_BUS) private readonly bus: NotificationBus,
    private readonly commands: CommandService,
  ) {}

  onApplicationBootstrap(): void {
    const runtimeSettings = loadRuntimeSettings();
    if (runtimeSettings.runtime === 'off') {
      // Turns stay requested (sessions STATUS_EXECUTING) until a projector with a runtime takes them.
      this.logger.log('agent runtime: off (SVC_AGENT_RUNTIME=off)');
      return;
    }
    const log = (line: string) => this.logger.log(line);
    // Tool calls run here, in the projector: connection secrets are opened per call, never handed to the runtime.
    const limits = loadToolLimits();
    this.tools = new ToolExecutor({ reads: this.reads, secrets: SecretBox.fromEnvironment(this.settings.dataDir), adapters: createToolAdapters(limits), limits, log });
    const runtime = createAgentRuntime(runtimeSettings, this.tools.run);
    const runner = new TurnRunner({
      events: this.events,
      commands: this.commands,
      runtime,
      typeHost: this.settings.typeHost,
      publish: (org, topic, notification) => this.bus.publish(org, topic, notification),
      log,
    });
    this.reactor = new AgentRuntimeReactor(this.events, this.reads, runner, { concurrency: runtimeSettings.concurrency, log });
    this.reactor.start();
    this.logger.log(`agent runtime: ${runtime.kind}, up to ${runtimeSettings.concurrency} turns at once`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.reactor?.stop();
    await this.tools?.close();
  }
}
