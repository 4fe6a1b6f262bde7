// The pure write-side domain. `shared/testing` is deliberately absent: it needs jest's `expect`.
export * from './shared/decider';
export * from './shared/domain-error';
export * from './shared/resource';
export * from './shared/resource.decider';
export * from './shared/json-path';
export * from './notes/note.resource';
export * from './roles/access.decider';
