/**
 * Agents and runbooks bind connections with the tools they may use (`connections[]` of name and
 * enabled_tools). Shared rule: each named connection exists (the kit checks references) and every
 * enabled tool is one that connection's type offers.
 */
import { invalid } from '../shared/domain-error';
import { isPlainObject, type JsonObject } from '../shared/json-path';
import type { References } from '../shared/resource';
import { toolsOf } from './connection-types';

export interface ConnectionBinding {
  name: string;
  enabledTools?: string[];
}

function bindings(resource: JsonObject): ConnectionBinding[] {
  return Array.isArray(resource.connections) ? (resource.connections.filter(isPlainObject) as unknown as ConnectionBinding[]) : [];
}

const CONNECTION_NAME = /^connections\/[^/]+$/;

/**
 * The connection names a resource binds, for ResourceSpec.references. Malformed names are left out:
 * checkConnectionBindings refuses them with a message about their form, not their existence.
 */
export function boundConnections(resource: JsonObject): string[] {
  return bindings(resource)
    .map((binding) => binding.name)
    .filter((name) => typeof name === 'string' && CONNECTION_NAME.test(name));
}

/** Every binding names a connection once and enables only tools of that connection's type. */
export function checkConnectionBindings(resource: JsonObject, refs: References, previous?: JsonObject): void {
  const seen = new Set<string>();
  const before = new Map(previous ? bindings(previous).map((b) => [b.name, new Set(b.enabledTools ?? [])]) : []);
  for (const [i, binding] of bindings(resource).entries()) {
    if (typeof binding.name !== 'string' || !CONNECTION_NAME.test(binding.name)) {
      throw invalid(`connections[${i}].name must look like 'connections/{connection_id}', got '${binding.name}'`);
    }
    if (seen.has(binding.name)) throw invalid(`connections[${i}]: '${binding.name}' is bound twice`);
    seen.add(binding.name);
    const connection = refs.get(binding.name);
    // Unchanged bindings are not re-judged (the connection may have changed type since).
    const unchanged = before.get(binding.name);
    const offered = connection ? toolsOf(String(connection.connectionType)) : [];
    const tools = new Set<string>();
    for (const tool of binding.enabledTools ?? []) {
      if (unchanged?.has(tool)) continue;
      // enabled_tools is a set: a repeated tool is a mistake in the request, as a repeated binding is.
      if (tools.has(tool)) throw invalid(`connections[${i}].enabled_tools: '${tool}' is listed twice`);
      tools.add(tool);
      if (!offered.includes(tool)) {
        throw invalid(
          `connections[${i}].enabled_tools: '${tool}' is not a tool of ${binding.name} (${String(connection?.connectionType ?? 'unknown type')}); ` +
            `available: ${offered.join(', ') || 'none'}`,
        );
      }
    }
  }
}
