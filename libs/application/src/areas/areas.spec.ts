import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import { storeOf } from '@svc/domain/shared/resource';
import { AREAS, PROJECTIONS, projectionServing } from '.';

/** The camelCase properties a wire input DTO declares (every one carries a class-validator rule). */
function wireFields(input: new () => object): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(input, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))].sort();
}

const resources = AREAS.flatMap((a) => a.resources.map((r) => ({ area: a.name, ...r })));

describe('areas', () => {
  it.each(resources.map((r) => [`${r.api.service} ${r.api.singular}`, r]))('%s: the wire settable fields are the domain settable fields', (_, r) => {
    const wire = wireFields(r.api.input);
    const { create, update } = r.api.methods;
    // A read-only resource (the frozen catalog) declares no input: the operator configuration sets it.
    if (!create && !update && wire.length === 0) return;
    expect(wire).toEqual([...r.spec.settable].sort());
  });

  it('name each projection once (a projection is its checkpoint)', () => {
    const names = PROJECTIONS.map((p) => p.name);
    expect(names.length).toBe(new Set(names).size);
  });

  it('write each read model from one projection only', () => {
    const collections = PROJECTIONS.flatMap((p) => p.collections);
    expect(collections.length).toBe(new Set(collections).size);
  });

  it("make a resource's commands wait for the projection writing its read model, which the kit is handed", () => {
    for (const r of resources) {
      const serving = PROJECTIONS.find((p) => p.name === r.waitsFor);
      expect([r.spec.kind, serving?.collections.includes(storeOf(r.spec))]).toEqual([r.spec.kind, true]);
      // What ResourceKit.execute waits for.
      expect([r.spec.kind, r.spec.projection ?? storeOf(r.spec)]).toEqual([r.spec.kind, r.waitsFor]);
      expect(projectionServing(r.spec)).toBe(r.waitsFor);
    }
    // Environments share the deployments' projection (one checkpoint for the deployment and its views).
    expect(projectionServing({ kind: 'DeploymentEnvironment' })).toBe('deployments');
  });

  it('register each resource of an API service once', () => {
    const keys = resources.map((r) => `${r.api.service} ${r.api.singular}`);
    expect(keys.length).toBe(new Set(keys).size);
  });
});
