/**
 * TOOL_PAGER_CREATE_INCIDENT (issue 21): opens an incident on the connection's pager (pager-of.ts).
 * Arguments: `title` (required), `description`, `severity` (critical, error, warning, info; default
 * error), `dedup_key` (the same key keeps one incident: a model that repeats itself pages once).
 * Write-classified: dry-run and incognito sessions never reach it (agent-runtime/tools.ts).
 */
import { pagerOf, PAGER_CONNECTION_TYPE } from '../../pager/pager-of';
import { PAGER_SEVERITIES, type PagerSeverity } from '../../pager/pager.port';
import { optionalArg, requiredArg, toolErrorOf } from '../port-tool-errors';
import { ToolError, type ToolAdapter, type ToolConnection, type ToolContext } from '../tool-adapter.port';

export const PAGER_TOOLS = ['TOOL_PAGER_CREATE_INCIDENT'] as const;

export class PagerToolAdapter implements ToolAdapter {
  readonly connectionType = PAGER_CONNECTION_TYPE;
  readonly tools: readonly string[] = PAGER_TOOLS;

  async run(tool: string, args: Record<string, unknown>, connection: ToolConnection, context: ToolContext): Promise<Record<string, unknown>> {
    if (tool !== 'TOOL_PAGER_CREATE_INCIDENT') throw new ToolError('INVALID_ARGUMENT', `${tool} is not a tool of ${this.connectionType}`);
    const title = requiredArg(args, 'title');
    const severity = (optionalArg(args, 'severity') ?? 'error') as PagerSeverity;
    if (!PAGER_SEVERITIES.includes(severity)) throw new ToolError('INVALID_ARGUMENT', `"severity" must be one of ${PAGER_SEVERITIES.join(', ')}`);
    const details = optionalArg(args, 'description');
    const dedupKey = optionalArg(args, 'dedup_key');
    try {
      const pager = pagerOf({ name: connection.name, connectionType: connection.type, connectionDetails: { pager: connection.details } }, { timeoutMs: context.limits.timeoutMs, signal: context.signal });
      const incident = await pager.createIncident({ title, severity, source: 'svc agent', ...(details ? { details } : {}), ...(dedupKey ? { dedupKey } : {}) });
      return { incident: { dedupKey: incident.dedupKey, title, severity, status: 'triggered' }, message: incident.message };
    } catch (error) {
      throw toolErrorOf(error);
    }
  }

  async close(): Promise<void> {}
}
