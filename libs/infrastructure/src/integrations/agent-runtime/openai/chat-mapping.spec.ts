import { toolsFor } from './chat-mapping';

describe('the tools offered to the model', () => {
  it('given a tool on one connection, it takes its own arguments; on several, it also requires `connection`, one of their names', () => {
    const agent = {
      name: 'agents/a',
      prompt: '',
      enabledTools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_LIST_TABLES'],
      connections: [
        { name: 'connections/warehouse', enabledTools: ['TOOL_SQLDB_QUERY', 'TOOL_SQLDB_LIST_TABLES'] },
        { name: 'connections/ledger', enabledTools: ['TOOL_SQLDB_QUERY'] },
      ],
    };
    const { tools, toolOf } = toolsFor(agent);
    const query = tools.find((t) => t.function.name === 'sqldb_query')!.function.parameters;
    expect(query).toEqual({
      type: 'object',
      properties: { sql: expect.objectContaining({ type: 'string' }), connection: { type: 'string', enum: ['connections/warehouse', 'connections/ledger'], description: 'the connection to run on' } },
      required: ['sql', 'connection'],
    });
    expect(tools.find((t) => t.function.name === 'sqldb_list_tables')!.function.parameters).toEqual({ type: 'object', properties: {}, required: [] });
    expect(toolOf.get('sqldb_query')).toBe('TOOL_SQLDB_QUERY');
  });
});
