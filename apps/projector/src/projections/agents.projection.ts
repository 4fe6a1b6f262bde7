import { agentsApi } from '@svc/contracts/agents/agents.contract';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';

export const agentsProjection = resourceProjection(agentSpec, agentsApi);
