import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { agentsApi } from '@svc/contracts/agents/agents.contract';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { ResourceKit } from '../resource-kit/resource-kit';

/**
 * svc.nxagent.v2.AgentService, the agent methods (Create/Get/List/Update/Delete/Undelete): the
 * resource kit; tags and connections are looked up as references before deciding.
 */
@Injectable()
class AgentsMethods implements OnModuleInit {
  constructor(private readonly kit: ResourceKit) {}

  onModuleInit(): void {
    this.kit.register(agentSpec, agentsApi);
  }
}

@Module({ providers: [AgentsMethods] })
export class AgentsModule {}
