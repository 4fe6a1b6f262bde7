import { localCommandBus } from '@svc/application/commands/command-sender';
import { CommandService } from '@svc/infrastructure/commands/command-service';
import { applyOperatorConfig } from '@svc/application/config/apply';
import { loadOperatorConfig, operatorConfigJsonSchema } from '@svc/infrastructure/config/operator-config';
import { SecretBox } from '@svc/infrastructure/config/secrets';
import { comparePositions, type Position } from '@svc/infrastructure/event-store/event-store.port';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { PROJECTIONS } from '@svc/application/areas';
import { type Context, showPosition, UsageError } from '../context';
import { projectorState } from './projections';

const PROJECTED_WAIT_MS = 10_000;
const POLL_MS = 50;

export interface ConfigApplyResult {
  file: string;
  changes: number;
  position: string | null;
  /** Whether every projection passed the change before the command answered (false: no projector, or it lags). */
  projected: boolean;
}

/** Applies the operator configuration file idempotently: a second run of the same file changes nothing. */
export async function configApply(ctx: Context, file: string | undefined): Promise<void> {
  if (!file) throw new UsageError('config apply needs a file (JSON or YAML, see spec/operator-config.md)');
  const config = loadOperatorConfig(file);
  const reads = await ctx.reads();
  const result = await applyOperatorConfig(config, {
    bus: localCommandBus(new CommandService(ctx.events())),
    reads,
    secrets: SecretBox.fromEnvironment(ctx.settings.dataDir),
  });
  // Answer once the new keys and members are readable, as the api's commands do (read your writes).
  const projected = result.position === null || (await waitProjected(reads, result.position));
  const report: ConfigApplyResult = {
    file,
    changes: result.changes,
    position: result.position ? showPosition(result.position) : null,
    projected,
  };
  ctx.print(report, (r) => {
    const line = `${r.file}: ${r.changes} change(s) applied${r.position ? ` (up to position ${r.position})` : ''}`;
    return r.projected ? line : `${line}\nnot projected yet: the changes take effect once a projector has caught up`;
  });
}

/** Prints the operator configuration's JSON Schema (the same with or without --json): `> docs/operator-config.schema.json`. */
export function configSchema(ctx: Context): void {
  ctx.print(operatorConfigJsonSchema(), (schema) => JSON.stringify(schema, null, 2));
}

/** Whether the running projector passed `position` in every projection (or those named) within a bounded wait. */
export async function waitProjected(reads: ReadStore, position: Position, names?: readonly string[]): Promise<boolean> {
  if (!(await projectorState(reads))?.running) return false;
  const deadline = Date.now() + PROJECTED_WAIT_MS;
  const projections = names ? PROJECTIONS.filter((p) => names.includes(p.name)) : PROJECTIONS;
  while (Date.now() < deadline) {
    const checkpoints = new Map((await reads.listCheckpoints()).map((c) => [c.name, c.position]));
    const behind = projections.some((p) => {
      const cp = checkpoints.get(p.name);
      return !cp || comparePositions(cp, position) < 0;
    });
    if (!behind) return true;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return false;
}
