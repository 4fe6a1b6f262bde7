/**
 * CreateInvestigation's write path. Everything the request can get wrong (the seed, the artifact
 * references, content the organization does not hold, the 128 MiB total, a deleted investigator)
 * is judged before anything is appended, and the investigation's own rules refuse it before any
 * other step. Then, each step idempotent under the investigation's ID: the investigation is
 * created, the referenced uploads are marked so they never expire, the investigator agent is
 * created on first use, the session's artifacts are imported, and the session starts with the seed
 * as a checkpoint write, so the runtime takes it at once.
 */
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ACTIVITY_TYPE } from '@svc/contracts/sessions/session.events';
import { type ArtifactEvent, type ArtifactRecord, sessionArtifactsStreamId } from '@svc/contracts/investigations/artifact.events';
import { type CreateInvestigationRequest, investigationsApi } from '@svc/contracts/investigations/investigations.contract';
import { agentSpec } from '@svc/domain/agents/agent.resource';
import { artifactsDecider, type ArtifactsState, type ImportArtifacts } from '@svc/domain/investigations/artifacts.decider';
import {
  EXECUTING,
  INVESTIGATOR_AGENT,
  INVESTIGATOR_AGENT_ID,
  INVESTIGATOR_PROMPT,
  investigationSpec,
  sessionOfInvestigation,
  WAITING,
} from '@svc/domain/investigations/investigation.resource';
import { artifactReferences, seedTexts, titleFromSeed } from '@svc/domain/investigations/seed';
import type { Actor } from '@svc/domain/shared/decider';
import { DomainError, failedPrecondition } from '@svc/domain/shared/domain-error';
import type { JsonObject } from '@svc/domain/shared/json-path';
import { type Resource, storeOf } from '@svc/domain/shared/resource';
import { READ_STORE } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { MAX_INVESTIGATION_ARTIFACT_BYTES } from '../artifacts/artifact-limits';
import { Uploads } from '../artifacts/uploads';
import { DecideAndAppend } from '@svc/application/commands/decide-and-append';
import { ResourceKit } from '../resource-kit/resource-kit';
import { ResourceReferences } from '../resource-kit/references';
import type { ResourceRequest } from '../resource-kit/request-envelopes';
import { chooseId } from '../resource-kit/resource-methods';
import { SessionCommands } from '../sessions/session-commands';

@Injectable()
export class InvestigationCommands {
  private readonly references: ResourceReferences;

  constructor(
    private readonly kit: ResourceKit,
    private readonly bus: CommandBus,
    private readonly sessions: SessionCommands,
    private readonly uploads: Uploads,
    @Inject(READ_STORE) reads: ReadStore,
  ) {
    this.references = new ResourceReferences(reads);
  }

  async create(actor: Actor, request: CreateInvestigationRequest): Promise<Resource> {
    const texts = seedTexts(request.initialActivities ?? []);
    const references = artifactReferences(request.artifacts ?? []);
    const given = request.investigation;
    const displayName = typeof given.displayName === 'string' && given.displayName !== '' ? given.displayName : titleFromSeed(texts);
    const resource: JsonObject = {
      ...(displayName === undefined ? {} : { displayName }),
      ...(typeof given.description === 'string' && given.description !== '' ? { description: given.description } : {}),
      // Without a seed the agent has nothing to do: the investigation waits for a message.
      status: texts.length > 0 ? EXECUTING : WAITING,
    };
    const id = chooseId(investigationSpec, investigationsApi, { requestId: request.requestId } as ResourceRequest, actor);
    const name = `investigations/${id}`;
    const session = sessionOfInvestigation(name);
    // Every later step is keyed by the investigation, so a retry with the request_id resumes it.
    const steps = `investigation:${id}`;
    // Judged before anything is appended: the organization holds every referenced upload.
    const held = await this.uploads.held(actor.org, references.map((r) => r.sha256), (i) => `artifacts[${i}] ('${references[i].name}')`, MAX_INVESTIGATION_ARTIFACT_BYTES);
    const artifacts: ArtifactRecord[] = references.map((reference, i) => ({ ...reference, sizeBytes: held[i].sizeBytes, blobKey: held[i].blobKey }));
    const investigator = await this.investigatorExists(actor);
    // The investigation first: its own rules (display_name, ...) refuse a request before the agent or any hold is touched.
    const investigation = await this.kit.send(investigationSpec, request.requestId, name, { type: 'Create', actor, id, resource });
    await this.uploads.reference(actor, held, name);
    if (!investigator) await this.createInvestigator(actor);
    if (artifacts.length > 0) {
      const command: ImportArtifacts = { type: 'ImportArtifacts', actor, session, source: name, artifacts };
      await this.bus.execute(
        new DecideAndAppend<ArtifactsState, ImportArtifacts, ArtifactEvent>(
          { decider: artifactsDecider, streamId: sessionArtifactsStreamId(actor.org, session), command, context: { actor, requestId: steps }, create: true },
          storeOf(investigationSpec),
        ),
      );
    }
    const messages = texts.map((text) => ({ '@type': `${this.sessions.typeHost}/${ACTIVITY_TYPE}`, user: { text: { text } } }));
    await this.sessions.create(actor, steps, {
      parent: INVESTIGATOR_AGENT,
      sessionId: id,
      settings: { associatedResources: [name], ...(displayName === undefined ? {} : { title: displayName }) },
      ...(messages.length > 0 ? { write: { messages, writeMode: 'WRITE_MODE_CHECKPOINT' } } : {}),
    });
    return investigation;
  }

  /** Whether the organization's investigator agent exists; a deleted one must be undeleted first (FAILED_PRECONDITION). */
  private async investigatorExists(actor: Actor): Promise<boolean> {
    const agent = await this.references.read(storeOf(agentSpec), actor.org, INVESTIGATOR_AGENT);
    if (agent && agent.deleteTime !== undefined) {
      throw failedPrecondition(`the investigator agent '${INVESTIGATOR_AGENT}' is deleted; undelete it to start investigations`);
    }
    return agent !== null;
  }

  /** The organization's investigator agent, created on first use. */
  private async createInvestigator(actor: Actor): Promise<void> {
    const resource = { title: 'Investigator', description: 'Runs the sessions of investigations (created by the service).', prompt: INVESTIGATOR_PROMPT };
    try {
      await this.kit.send(agentSpec, `investigator:${actor.org}`, INVESTIGATOR_AGENT, { type: 'Create', actor, id: INVESTIGATOR_AGENT_ID, resource });
    } catch (error) {
      // Another request created it first.
      if (!(error instanceof DomainError && error.code === 'ALREADY_EXISTS')) throw error;
    }
  }
}
