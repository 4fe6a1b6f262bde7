import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { AREAS } from '@svc/application/areas';
import { ResourceKit } from '../resource-kit/resource-kit';

/**
 * Every kit resource of every area (libs/application/src/areas), registered in one place: a plain
 * area needs no module of its own. Areas with methods beyond the kit's add a module for those only.
 */
@Injectable()
class AreaResources implements OnModuleInit {
  constructor(private readonly kit: ResourceKit) {}

  onModuleInit(): void {
    for (const area of AREAS) for (const { spec, api } of area.resources) this.kit.register(spec, api);
  }
}

@Module({ providers: [AreaResources] })
export class AreasModule {}
