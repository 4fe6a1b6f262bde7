/**
 * `PUT /v1/artifacts/{sha256}`: raw bytes (`application/octet-stream`) streamed from the request
 * into the blob store under a key of the caller's organization, hashed on the way; a mismatch, more
 * than 64 MiB or more than the organization's quota stores nothing. Not a registry method: its body
 * is a stream, which the JSON request parsing must never see.
 */
import { Controller, Get, HttpCode, Inject, Param, Put, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_ARTIFACTS_STORE } from '@svc/contracts/investigations/artifact.events';
import { UploadArtifactResponse } from '@svc/contracts/investigations/investigations.contract';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import { docId } from '@svc/infrastructure/projection/projection';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import type { Readable } from 'node:stream';
import { DomainError, invalid } from '@svc/domain/shared/domain-error';
import { BLOB_STORE, type BlobStore, checkSha256, tooLarge } from '@svc/infrastructure/blobs';
import { actorOf, CurrentPrincipal, type Principal } from '../auth/principal';
import { Answers } from '../openapi/route-facts';
import { MAX_ARTIFACT_BYTES } from './artifact-limits';
import { blobKeyOf, downloadHeaders } from './download-headers';
import { Uploads } from './uploads';

export const UPLOAD_PERMISSION = 'INVESTIGATIONS_WRITE';

@Controller()
export class ArtifactsController {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly uploads: Uploads,
  ) {}

  /** A session's artifact, streamed (GetArtifact's `downloadUri`): only the caller's organization's sessions. */
  @Get('v1/agents/:agent/sessions/:session/artifacts/*')
  async download(@Param('agent') agent: string, @Param('session') session: string, @Param('*') name: string, @CurrentPrincipal() principal: Principal, @Res() reply: FastifyReply) {
    const sessionName = `agents/${agent}/sessions/${session}`;
    const doc = await this.reads.collection(SESSION_ARTIFACTS_STORE).findOne({ _id: docId(principal.org, `${sessionName}/artifacts/${name}`) });
    const stream = doc ? await this.blobs.get(blobKeyOf(doc)) : null;
    if (!doc || !stream) throw new DomainError('NOT_FOUND', `artifact '${name}' of session '${sessionName}' not found`);
    for (const [header, value] of Object.entries(downloadHeaders(doc, name))) void reply.header(header, value);
    return reply.send(stream);
  }

  @Put('v1/artifacts/:sha256')
  @HttpCode(200)
  @Answers(UploadArtifactResponse)
  async upload(@Req() req: FastifyRequest, @Param('sha256') sha256: string, @CurrentPrincipal() principal: Principal): Promise<UploadArtifactResponse> {
    if (!principal.permissions.includes(UPLOAD_PERMISSION)) throw new DomainError('PERMISSION_DENIED', `artifact upload requires the ${UPLOAD_PERMISSION} permission`);
    checkSha256(sha256);
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/octet-stream' || !isStream(req.body)) throw invalid('an artifact upload must be sent as content type application/octet-stream');
    const header = req.headers['content-length'];
    const declared = header === undefined ? undefined : Number(header);
    if (declared !== undefined && declared > MAX_ARTIFACT_BYTES) throw tooLarge(MAX_ARTIFACT_BYTES);
    return this.uploads.upload(actorOf(principal), sha256, req.body, declared);
  }
}

function isStream(body: unknown): body is Readable {
  return typeof (body as Readable | undefined)?.[Symbol.asyncIterator] === 'function' && typeof (body as Readable).pipe === 'function';
}
