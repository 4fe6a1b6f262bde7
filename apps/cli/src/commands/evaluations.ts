import { readFileSync } from 'node:fs';
import { RecordDeploymentMonitorEvaluationRequest } from '@svc/contracts/deploymonitor/deploymonitor.contract';
import { PERMISSIONS } from '@svc/contracts/roles/permissions';
import { evaluationSpec } from '@svc/domain/deploymonitor/evaluation.resource';
import type { Actor } from '@svc/domain/shared/decider';
import { DomainError } from '@svc/domain/shared/domain-error';
import { resourceStreamId, type Resource, type ResourceCommand } from '@svc/domain/shared/resource';
import { resourceDecider } from '@svc/domain/shared/resource.decider';
import { projectionServing } from '@svc/application/areas';
import { localCommandBus } from '@svc/application/commands/command-sender';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import { docId } from '@svc/infrastructure/projection/projection';
import { parseRequest } from '@svc/infrastructure/requests/parse-request';
import { type Context, showPosition, UsageError } from '../context';
import { waitProjected } from './config';

/** The actor recorded on events the operator CLI appends. */
export const CLI_ACTOR = 'operator-cli';

export interface RecordResult {
  evaluation: Resource;
  changed: boolean;
  position: string | null;
  projected: boolean;
}

/**
 * `evaluations record --org <org> [--file <file>]`: RecordDeploymentMonitorEvaluation from the
 * command line, the same request body (JSON, snake_case or camelCase) read from a file or stdin,
 * through the same decider the RPC uses. Stands in for the agent runtime until it records them.
 */
export async function recordEvaluation(ctx: Context, org: string | undefined, file: string | undefined, stdin: () => string): Promise<void> {
  if (!org) throw new UsageError('evaluations record needs --org <organization>');
  let body: unknown;
  try {
    body = JSON.parse(file && file !== '-' ? readFileSync(file, 'utf8') : stdin());
  } catch (error) {
    throw new UsageError(`evaluations record needs a JSON request body (--file or stdin): ${(error as Error).message}`);
  }
  const request = await parseRequest({ request: RecordDeploymentMonitorEvaluationRequest }, body);
  const reads = await ctx.reads();
  if (!(await reads.collection('organizations').findOne({ _id: docId(org, `organizations/${org}`) }))) {
    throw new DomainError('NOT_FOUND', `organization '${org}' not found`);
  }
  const id = request.deploymentMonitorEvaluationId;
  const actor: Actor = { org, actor: CLI_ACTOR, subject: CLI_ACTOR, permissions: [...PERMISSIONS], now: new Date().toISOString() };
  const command: ResourceCommand = { type: 'Put', actor, id, resource: { ...request.deploymentMonitorEvaluation } };
  const result = await localCommandBus(new CommandService(ctx.events())).execute(
    new DecideAndAppend({
      decider: resourceDecider(evaluationSpec),
      streamId: resourceStreamId(evaluationSpec, org, `${evaluationSpec.collection}/${id}`),
      command,
      context: { actor, requestId: request.requestId },
    }),
  );
  const projected = result.position === null || (await waitProjected(reads, result.position, [projectionServing(evaluationSpec)]));
  const report: RecordResult = {
    evaluation: result.state.resource as Resource,
    changed: result.events.length > 0 && !result.replayed,
    position: result.position ? showPosition(result.position) : null,
    projected,
  };
  ctx.print(report, (r) => {
    const line = `${r.evaluation.name} ${r.changed ? 'recorded' : 'unchanged'} (${String(r.evaluation.status)})`;
    return r.projected ? line : `${line}\nnot projected yet: it shows in Get and List once a projector has caught up`;
  });
}
