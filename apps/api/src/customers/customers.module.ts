import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { customersApi, customersV1Api } from '@svc/contracts/customers/customers.contract';
import { customerSpec } from '@svc/domain/customers/customer.resource';
import { ResourceKit } from '../resource-kit/resource-kit';

/** svc.customers.v2.CustomersService and its deprecated v1: the resource kit, external_id unique. */
@Injectable()
class CustomersMethods implements OnModuleInit {
  constructor(private readonly kit: ResourceKit) {}

  onModuleInit(): void {
    this.kit.register(customerSpec, customersApi);
    this.kit.register(customerSpec, customersV1Api);
  }
}

@Module({ providers: [CustomersMethods] })
export class CustomersModule {}
