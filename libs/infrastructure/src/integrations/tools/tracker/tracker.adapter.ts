/**
 * TOOL_TRACKER_CREATE_TICKET (issue 21): opens a ticket in the connection's tracker (tracker-of.ts).
 * Arguments: `title` (required), `description` (the ticket's body), `labels` (names). Write-classified:
 * dry-run and incognito sessions never reach it (agent-runtime/tools.ts).
 */
import { trackerOf, TRACKER_CONNECTION_TYPE } from '../../tracker/tracker-of';
import { optionalArg, requiredArg, toolErrorOf } from '../port-tool-errors';
import { ToolError, type ToolAdapter, type ToolConnection, type ToolContext } from '../tool-adapter.port';

export const TRACKER_TOOLS = ['TOOL_TRACKER_CREATE_TICKET'] as const;

export class TrackerToolAdapter implements ToolAdapter {
  readonly connectionType = TRACKER_CONNECTION_TYPE;
  readonly tools: readonly string[] = TRACKER_TOOLS;

  async run(tool: string, args: Record<string, unknown>, connection: ToolConnection, context: ToolContext): Promise<Record<string, unknown>> {
    if (tool !== 'TOOL_TRACKER_CREATE_TICKET') throw new ToolError('INVALID_ARGUMENT', `${tool} is not a tool of ${this.connectionType}`);
    const title = requiredArg(args, 'title');
    const body = optionalArg(args, 'description');
    const labels = args.labels;
    if (labels !== undefined && (!Array.isArray(labels) || labels.some((l) => typeof l !== 'string'))) throw new ToolError('INVALID_ARGUMENT', '"labels" must be a list of names');
    try {
      const tracker = trackerOf({ name: connection.name, connectionType: connection.type, connectionDetails: { tracker: connection.details } }, { timeoutMs: context.limits.timeoutMs });
      const ticket = await tracker.createTicket({ title, ...(body ? { body } : {}), ...(labels ? { labels: labels as string[] } : {}) });
      return { ticket: { key: ticket.key, url: ticket.url, title: ticket.title, state: ticket.state } };
    } catch (error) {
      throw toolErrorOf(error);
    }
  }

  async close(): Promise<void> {}
}
