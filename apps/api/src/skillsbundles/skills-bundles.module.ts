/**
 * svc.skills_bundles.v1.SkillsBundlesService beyond the kit's CRUD (which the skills bundles area
 * registers): ListSkillsBundleSkills and PreviewSkillsBundleSkills read the repository live, in one
 * page, for any member. A deleted bundle's skills are no longer served (an empty list).
 */
import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import {
  ListSkillsBundleSkillsRequest,
  ListSkillsBundleSkillsResponse,
  PreviewSkillsBundleSkillsRequest,
  PreviewSkillsBundleSkillsResponse,
  SKILLS_BUNDLES_SERVICE,
} from '@svc/contracts/skillsbundles/skillsbundles.contract';
import { invalid } from '@svc/domain/shared/domain-error';
import { checkBranch, checkDirectory, checkRepository } from '@svc/domain/skillsbundles/skills-bundle.resource';
import { discoverSkills, skillsSourceOf, type Skill, type SkillsSource } from '@svc/infrastructure/integrations/codehost/skills';
import { ConnectionCredentials } from '../connections/connection-credentials';
import { ConnectionsModule } from '../connections/connections.module';
import { GetDocumentQuery } from '../cqrs/queries';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod, type ServiceSettings } from '../resource-kit/method-builders';

const SKILLS_BUNDLES: ServiceSettings = { service: SKILLS_BUNDLES_SERVICE };
const BUNDLE_NAME = /^skills-bundles\/[^/]+$/;
const CONNECTION_NAME = /^connections\/[^/]+$/;

@Injectable()
class SkillsBundleMethods implements OnModuleInit {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly queries: QueryBus,
    private readonly credentials: ConnectionCredentials,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      defineMethod(
        SKILLS_BUNDLES,
        'ListSkillsBundleSkills',
        { request: ListSkillsBundleSkillsRequest, response: ListSkillsBundleSkillsResponse },
        'read',
        async ({ principal, request }) => {
          if (!BUNDLE_NAME.test(request.parent)) throw invalid(`parent must look like 'skills-bundles/{skills_bundle_id}', got '${request.parent}'`);
          const bundle = await this.queries.execute(new GetDocumentQuery('skills-bundles', principal.org, request.parent, 'skills bundle'));
          if (bundle.deleteTime) return { skills: [], nextPageToken: '' };
          return { skills: await this.skillsOf(principal.org, skillsSourceOf(bundle)), nextPageToken: '' };
        },
      ),
      defineMethod(
        SKILLS_BUNDLES,
        'PreviewSkillsBundleSkills',
        { request: PreviewSkillsBundleSkillsRequest, response: PreviewSkillsBundleSkillsResponse },
        'read',
        async ({ principal, request }) => {
          if (!CONNECTION_NAME.test(request.connection)) throw invalid(`connection must look like 'connections/{connection_id}', got '${request.connection}'`);
          const source: SkillsSource = {
            connection: request.connection,
            repository: checkRepository(request.repository),
            directory: checkDirectory(request.directory),
            branch: checkBranch(request.branch),
          };
          return { skills: await this.skillsOf(principal.org, source) };
        },
      ),
    );
  }

  private skillsOf(org: string, source: SkillsSource): Promise<Skill[]> {
    return this.credentials.withCodeHost(org, source.connection, (host) => discoverSkills(host, source));
  }
}

@Module({ imports: [ConnectionsModule], providers: [SkillsBundleMethods] })
export class SkillsBundlesModule {}
