import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { SESSION_ARTIFACTS_STORE } from '@svc/contracts/investigations/artifact.events';
import {
  CreateInvestigationRequest,
  GetArtifactRequest,
  GetArtifactResponse,
  INVESTIGATION_METHODS,
  investigationsApi,
} from '@svc/contracts/investigations/investigations.contract';
import { resourceResponse } from '@svc/contracts/shared/responses';
import { sessionsApi } from '@svc/contracts/sessions/sessions.contract';
import { sessionSpec } from '@svc/domain/sessions/session.resource';
import { notFound } from '@svc/domain/shared/domain-error';
import { BLOB_STORE, type BlobStore } from '@svc/infrastructure/blobs';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import { docId } from '@svc/infrastructure/projection/projection';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { actorOf } from '../auth/principal';
import { ArtifactsModule } from '../artifacts/artifacts.module';
import { blobKeyOf } from '../artifacts/download-headers';
import { MethodRegistry, type MethodCall } from '../http/method-registry';
import { defineMethod } from '../resource-kit/method-builders';
import { toResponse } from '../resource-kit/presentation';
import { nameChecker } from '../resource-kit/request-envelopes';
import { SessionCommands } from '../sessions/session-commands';
import { InvestigationCommands } from './investigation-commands';

/** Artifacts up to this size come inline (base64) in GetArtifact; larger ones from the download route. */
export const INLINE_ARTIFACT_BYTES = 1024 * 1024;
const checkSession = nameChecker(sessionSpec, 'id', 'session');

/**
 * svc.investigations.v1.InvestigationService beyond the kit's Get / List / Update (registered by
 * its area): CreateInvestigation. And GetArtifact of svc.nxagent.v2.AgentService.
 */
@Injectable()
class InvestigationMethods implements OnModuleInit {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly investigations: InvestigationCommands,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      defineMethod(investigationsApi, INVESTIGATION_METHODS.create, { request: CreateInvestigationRequest, response: resourceResponse(investigationsApi) }, 'write', async ({ principal, request }: MethodCall<CreateInvestigationRequest>) => ({
        investigation: await this.investigations.create(actorOf(principal), request),
      })),
      defineMethod(sessionsApi, 'GetArtifact', { request: GetArtifactRequest, response: GetArtifactResponse }, 'read', ({ principal, request }: MethodCall<GetArtifactRequest>) =>
        this.getArtifact(principal.org, checkSession(request.session), request.name),
      ),
    );
  }

  /** The artifact's record, with its bytes as base64 when they are at most 1 MiB (docs/decisions.md). */
  private async getArtifact(org: string, session: string, name: string) {
    const doc = await this.reads.collection(SESSION_ARTIFACTS_STORE).findOne({ _id: docId(org, `${session}/artifacts/${name}`) });
    if (!doc) throw notFound(`artifact '${name}' of session '${session}' not found`);
    const artifact = toResponse(doc) as Record<string, unknown>;
    const size = Number(artifact.sizeBytes);
    const response: Record<string, unknown> = { ...artifact, sizeBytes: String(size), downloadUri: `/v1/${session}/artifacts/${name}` };
    if (size <= INLINE_ARTIFACT_BYTES) {
      const stream = await this.blobs.get(blobKeyOf(doc));
      if (stream) {
        const parts: Buffer[] = [];
        for await (const part of stream) parts.push(part as Buffer);
        response.content = Buffer.concat(parts).toString('base64');
      }
    }
    return { artifact: response };
  }
}

@Module({ imports: [ArtifactsModule], providers: [InvestigationMethods, InvestigationCommands, SessionCommands] })
export class InvestigationsModule {}
