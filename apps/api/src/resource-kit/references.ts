/**
 * Resources a request refers to, read from their read models: the parent of a nested create or list,
 * and the references a resource body makes (ResourceSpec.references), for the decider to judge.
 */
import { notFound } from '@svc/domain/shared/domain-error';
import { type Facts, kindLabel, namePattern, storeOf, type References, type Resource, type ResourceSpec } from '@svc/domain/shared/resource';
import { docId } from '@svc/infrastructure/projection/projection';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { toResponse } from './presentation';
import { nameChecker } from './request-envelopes';

/**
 * What a kind's writes need established by I/O beyond its references (a chat connection's live
 * bot membership for triggers): given the looked-up references, the facts `validate` reads.
 */
export type FactsProvider = (org: string, refs: References) => Promise<Facts | undefined>;

export class ResourceReferences {
  /** Every registered resource, to find the read model a referenced name lives in. */
  private readonly specs: ResourceSpec[] = [];
  private readonly facts = new Map<string, FactsProvider>();

  constructor(private readonly reads: ReadStore) {}

  /** Makes the resource's names resolvable as references. */
  add(spec: ResourceSpec): void {
    this.specs.push(spec);
  }

  /** Makes `provider` establish the facts of `kind`'s creates and updates. */
  provideFacts(kind: string, provider: FactsProvider): void {
    this.facts.set(kind, provider);
  }

  /**
   * What the decider judges a create or update of `spec` with: the resources the body refers to, and
   * the facts of its kind (undefined when its kind has no provider), in one call.
   */
  async judged(spec: ResourceSpec, org: string, resource: Record<string, unknown>): Promise<{ refs: References; facts: Facts | undefined }> {
    const refs = await this.lookUp(spec, org, resource);
    return { refs, facts: await this.facts.get(spec.kind)?.(org, refs) };
  }

  /** The resources a request body refers to (null when missing). */
  async lookUp(spec: ResourceSpec, org: string, resource: Record<string, unknown>): Promise<References> {
    const names = [...new Set(spec.references?.(resource) ?? [])];
    const found = await Promise.all(names.map(async (name) => [name, await this.read(this.storeFor(name), org, name)] as const));
    return new Map(found);
  }

  /**
   * A name of this kind of resource from a request field (`parent` of a nested List or Create),
   * checked and existing in the caller's organization, else INVALID_ARGUMENT or NOT_FOUND. A
   * soft-deleted one counts unless `live` (a new child needs a live parent).
   */
  async existing(spec: ResourceSpec, org: string, name: unknown, field = 'name', live = false): Promise<string> {
    const checked = nameChecker(spec, 'id', field)(name);
    const found = await this.read(storeOf(spec), org, checked);
    if (!found || (live && found.deleteTime !== undefined)) throw notFound(`${kindLabel(spec.kind)} '${checked}' not found`);
    return checked;
  }

  /** The read-model document of a resource, in the response shape (null when there is none). */
  async read(store: string, org: string, name: string): Promise<Resource | null> {
    const doc = store ? await this.reads.collection(store).findOne({ _id: docId(org, name) }) : null;
    return doc ? (toResponse(doc) as Resource) : null;
  }

  /** The read model a name lives in: a registered resource's, else the name's first segment (`connections/x`). */
  private storeFor(name: string): string {
    const spec = this.specs.find((s) => namePattern(s).test(name));
    return spec ? storeOf(spec) : name.slice(0, Math.max(0, name.indexOf('/')));
  }
}
