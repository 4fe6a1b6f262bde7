import { customersApi } from '@svc/contracts/customers/customers.contract';
import { customerSpec } from '@svc/domain/customers/customer.resource';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';

export const customersProjection = resourceProjection(customerSpec, customersApi);
