/**
 * Connections come only from operator configuration; the API reads them. Secrets inside
 * `connectionDetails` arrive here already replaced by a reference (`${env:NAME}`) or ciphertext,
 * so no clear secret ever reaches an event.
 */
import type { Actor, Decider } from '../shared/decider';
import { invalid } from '../shared/domain-error';

export interface Connection {
  name: string;
  displayName: string;
  description: string;
  connectionType: string;
  connectionDetails: Record<string, unknown>;
  toolConfigurations: Array<{ tool: string; enabled: boolean }>;
}

export interface ConnectionState {
  connection: Connection | null;
}

export type ConnectionEvent =
  | { type: 'ConnectionConfigured'; data: { connection: Connection; createTime: string } }
  | { type: 'ConnectionReconfigured'; data: { connection: Connection; updateTime: string } };

export type ConnectionCommand = { type: 'ConfigureConnection'; actor: Actor; connection: Connection };

const CONNECTION_NAME = /^connections\/[a-zA-Z0-9][a-zA-Z0-9_-]{0,62}$/;

export const connectionDecider: Decider<ConnectionState, ConnectionCommand, ConnectionEvent> = {
  initialState: () => ({ connection: null }),
  evolve: (_state, event) => ({ connection: event.data.connection }),
  decide(command, state) {
    const { connection } = command;
    if (!CONNECTION_NAME.test(connection.name)) throw invalid(`connection name '${connection.name}' is not valid`);
    if (!/^CONNECTION_TYPE_[A-Z0-9_]+$/.test(connection.connectionType)) {
      throw invalid(`connection type '${connection.connectionType}' is not valid`);
    }
    if (state.connection === null) {
      return [{ type: 'ConnectionConfigured', data: { connection, createTime: command.actor.now } }];
    }
    if (JSON.stringify(state.connection) === JSON.stringify(connection)) return [];
    return [{ type: 'ConnectionReconfigured', data: { connection, updateTime: command.actor.now } }];
  },
};
