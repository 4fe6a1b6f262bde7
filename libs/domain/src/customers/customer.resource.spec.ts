import type { Actor } from '../shared/decider';
import type { ResourceCommand, ResourceEvent } from '../shared/resource';
import { resourceDecider } from '../shared/resource.decider';
import { givenFor } from '../shared/testing';
import { sha256Hex } from '../shared/unique-claim';
import { customerSpec } from './customer.resource';

const given = givenFor(resourceDecider(customerSpec));
const T0 = '2024-05-01T10:00:00Z';
const T1 = '2024-05-02T10:00:00Z';
const actorAt = (now: string): Actor => ({ org: 'acme', actor: 'users/al', subject: 'users/al', permissions: ['KNOWLEDGE_WRITE'], now });
const createCustomer = (id: string, resource: Record<string, unknown>): ResourceCommand => ({
  type: 'Create',
  actor: actorAt(T0),
  id,
  resource,
  claimed: typeof resource.externalId === 'string' ? { externalId: resource.externalId } : {},
});
const created: ResourceEvent = {
  type: 'CustomerCreated',
  data: { resource: { name: 'customers/c1', externalId: 'tenant-1', id: sha256Hex('tenant-1'), createTime: T0, updateTime: T0 } },
};

describe('customers', () => {
  it('creates a customer whose id is the SHA-256 hex of its external_id (a client-sent id is ignored)', () => {
    given()
      .when(createCustomer('c1', { externalId: 'tenant-1', displayName: 'Tenant One', runbook: 'call Bo', id: 'forged' }))
      .then([
        {
          type: 'CustomerCreated',
          data: {
            resource: {
              name: 'customers/c1',
              externalId: 'tenant-1',
              id: sha256Hex('tenant-1'),
              displayName: 'Tenant One',
              runbook: 'call Bo',
              createTime: T0,
              updateTime: T0,
            },
          },
        },
      ]);
  });

  it('requires external_id on create and refuses to clear it', () => {
    given().when(createCustomer('c1', { displayName: 'x' })).thenFails('INVALID_ARGUMENT', /customer 'customers\/c1' needs an external_id/);
    given().when(createCustomer('c1', { externalId: '' })).thenFails('INVALID_ARGUMENT', /external_id/);
    given([created])
      .when({ type: 'Update', actor: actorAt(T1), name: 'customers/c1', resource: {}, scope: { paths: ['externalId'] } })
      .thenFails('INVALID_ARGUMENT', /external_id/);
  });

  it('applies the spec ID rule: letters, digits, hyphens, underscores, starting with a letter or digit', () => {
    given().when(createCustomer('_c', { externalId: 'e' })).thenFails('INVALID_ARGUMENT', /customer_id must start with a letter or digit/);
    given().when(createCustomer('c.1', { externalId: 'e' })).thenFails('INVALID_ARGUMENT');
    given().when(createCustomer('9_a-B', { externalId: 'e' })).then([expect.objectContaining({ type: 'CustomerCreated' }) as ResourceEvent]);
  });

  it('recomputes id when an update changes external_id (under its claim)', () => {
    given([created])
      .when({
        type: 'Update',
        actor: actorAt(T1),
        name: 'customers/c1',
        resource: { externalId: 'tenant-2' },
        scope: 'all-provided',
        claimed: { externalId: 'tenant-2' },
      })
      .then([{ type: 'CustomerUpdated', data: { set: { externalId: 'tenant-2', id: sha256Hex('tenant-2') }, unset: [], updateTime: T1 } }]);
  });

  it('refuses an external_id the API did not claim for this command', () => {
    given().when({ type: 'Create', actor: actorAt(T0), id: 'c1', resource: { externalId: 'tenant-1' } }).thenFails('ABORTED');
  });
});
