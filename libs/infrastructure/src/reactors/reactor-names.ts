/**
 * The one place reactor records are named: a reactor's checkpoint is `reactor:<name>` (log-driven
 * reactors; its parked events carry the same name as their projection) and its progress record
 * `reactor:<name>:status`. The name is the area's declaration's (libs/application/src/reactors/reactor.ts).
 */
export const reactorCheckpoint = (name: string): string => `reactor:${name}`;
export const reactorStatusKey = (name: string): string => `reactor:${name}:status`;
