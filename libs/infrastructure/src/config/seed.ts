import type { JsonObject } from '@svc/domain/shared/json-path';
import type { ResourceSpec } from '@svc/domain/shared/resource';
import type { ReadStore } from '../read-store/read-store.port';
import type { OrganizationConfig } from './operator-config';

/** One resource the service keeps in an organization, applied as a Sync command (see seeds.ts). */
export interface Seed {
  spec: ResourceSpec;
  id: string;
  /** Name of the parent of a nested resource (`services/checkout` for its dimensions). */
  parent?: string;
  /** The resource as it should be (settable and output fields, no name or times); null deletes it. */
  resource: JsonObject | null;
  /** `replace` makes it match; `ensure` only creates it when missing (users may edit it afterwards). */
  mode: 'replace' | 'ensure';
}

/** One area's seeds for an organization; may read the current read model (to delete what is gone). */
export type SeedSource = (org: OrganizationConfig, reads: ReadStore) => Promise<Seed[]>;
