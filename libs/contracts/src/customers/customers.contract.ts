import { IsOptional, IsString } from 'class-validator';
import { CUSTOMERS_V1_SERVICE } from '../catalog';
import { RESOURCE_FILTERS, type ResourceApi } from '../shared/resource-api';

/** Settable fields of a customer (spec part 3, "Customer"); `id` is output only. */
export class CustomerInput {
  @IsOptional() @IsString() externalId?: string;
  @IsOptional() @IsString() displayName?: string;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsString() runbook?: string;
}

export const customersApi: ResourceApi = {
  service: 'svc.customers.v2.CustomersService',
  singular: 'customer',
  plural: 'customers',
  idField: 'customerId',
  input: CustomerInput,
  methods: { create: 'CreateCustomer', get: 'GetCustomer', update: 'UpdateCustomer', delete: 'DeleteCustomer', list: 'ListCustomers' },
  filters: {
    ...RESOURCE_FILTERS,
    id: { type: 'string', path: 'id' },
    external_id: { type: 'string', path: 'externalId' },
    display_name: { type: 'string', path: 'displayName' },
    description: { type: 'string', path: 'description', indexed: false },
    runbook: { type: 'string', path: 'runbook', indexed: false },
  },
  orderBy: {
    name: 'name',
    display_name: 'displayName',
    external_id: 'externalId',
    create_time: 'createTime',
    update_time: 'updateTime',
  },
  defaultOrder: 'create_time desc',
  permission: 'KNOWLEDGE_WRITE',
  // Derived from external_id: dropped from an update_mask like the other output-only fields.
  outputOnly: ['id'],
};

/**
 * Customers v1 ("exists and is deprecated", part 1 Versioning): the v2 methods, shapes and handlers
 * under the v1 package, each answer marked deprecated. The date is ours (the spec shows none).
 */
export const CUSTOMERS_V1_DEPRECATED_SINCE = '2025-01-01T00:00:00Z';
export const customersV1Api: ResourceApi = {
  ...customersApi,
  service: CUSTOMERS_V1_SERVICE,
  deprecated: { since: CUSTOMERS_V1_DEPRECATED_SINCE, successor: customersApi.service },
};
