import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { tagsApi } from '@svc/contracts/tags/tags.contract';
import { tagSpec } from '@svc/domain/tags/tag.resource';
import { ResourceKit } from '../resource-kit/resource-kit';

/** svc.tags.v1.TagsService: the resource kit; system tags are seeded (libs/infrastructure/src/tags). */
@Injectable()
class TagsMethods implements OnModuleInit {
  constructor(private readonly kit: ResourceKit) {}

  onModuleInit(): void {
    this.kit.register(tagSpec, tagsApi);
  }
}

@Module({ providers: [TagsMethods] })
export class TagsModule {}
