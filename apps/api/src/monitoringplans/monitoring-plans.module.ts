/**
 * svc.monitoring_plans.v1.MonitoringPlanService beyond Get and List (the kit resource its area
 * registers): pull-request recording (rules 5 and 6), activation (rules 3 and 4) and comments
 * (rules 1 and 2). Writes need CHANGE_MONITOR_WRITE and answer once the plans' read model has them.
 * The use cases are the application layer's (libs/application/src/areas/monitoringplans), shared with
 * the projector's reactors. The legacy MonitoringRunService (GetMonitoringRun, ListMonitoringRuns) is
 * the kit's changelog of runs under a plan.
 */
import { Inject, Injectable, Logger, Module, type OnModuleInit } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { MonitoringPlans, PLANS } from '@svc/application/areas/monitoringplans/plans';
import { PlanComments, type PlanAuthorNotifier } from '@svc/application/areas/monitoringplans/plan-comments';
import { CodeHosts } from '@svc/application/integrations/code-hosts';
import {
  ActivateFromDeploymentRequest,
  ActivatePlanFromDeploymentsRequest,
  ActivatePlansResponse,
  monitoringPlansApi,
  monitoringRunsApi,
  PostCommentResponse,
  PostInProgressCommentRequest,
  PostPlanCommentRequest,
  PullRequestLinkResponse,
  RecordPullRequestFixLinkRequest,
  RecordPullRequestUpdatedRequest,
  RecordPullRequestUpdatedResponse,
} from '@svc/contracts/monitoringplans/monitoringplans.contract';
import { monitoringPlanSpec } from '@svc/domain/monitoringplans/monitoring-plan.resource';
import { invalid } from '@svc/domain/shared/domain-error';
import type { Settings } from '@svc/infrastructure/config/env';
import { SecretBox } from '@svc/infrastructure/config/secrets';
import { READ_STORE, SETTINGS } from '@svc/infrastructure/nest/tokens';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';
import { actorOf } from '../auth/principal';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod } from '../resource-kit/method-builders';
import { ResourceKit } from '../resource-kit/resource-kit';
import { ChangeMonitorDms, ChangeMonitorModule } from '../changemonitor/change-monitor.module';

/** Who gets rule 1's chat DM: the author's change-monitor setup, found by their code-host login. */
export const PLAN_AUTHOR_NOTIFIER = Symbol('PLAN_AUTHOR_NOTIFIER');

const DM_OUTCOMES = { NOT_LINKED: 'not-linked', AMBIGUOUS: 'not-linked', DISABLED: 'disabled', UNAVAILABLE: 'unavailable' } as const;

/** Rule 1's DM through the change-monitor seam, which never throws (best-effort, independent of the comment). */
function chatDmNotifier(dms: ChangeMonitorDms): PlanAuthorNotifier {
  return {
    async notify(org, author, markdown) {
      if (author.login === '') return 'not-linked';
      const outcome = await dms.send(org, { codehostLogin: author.login }, `${author.plan} (${author.repository})\n\n${markdown}`);
      return outcome.sent ? 'sent' : DM_OUTCOMES[outcome.reason];
    },
  };
}
const PLAN_NAME = /^monitoring-plans\/[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$/;

/** The plan a comment request names: `name`, or the REST path's `{plan_id}`. */
function planNameOf(request: { name?: string; planId?: string }): string {
  const name = request.name || (request.planId ? `monitoring-plans/${request.planId}` : '');
  if (!PLAN_NAME.test(name)) throw invalid(`name must look like 'monitoring-plans/{plan_id}', got '${name.slice(0, 200)}'`);
  return name;
}

@Injectable()
class MonitoringPlanMethods implements OnModuleInit {
  private readonly plans: MonitoringPlans;
  private readonly comments: PlanComments;

  constructor(
    private readonly registry: MethodRegistry,
    private readonly kit: ResourceKit,
    bus: CommandBus,
    @Inject(READ_STORE) reads: ReadStore,
    @Inject(SETTINGS) settings: Settings,
    @Inject(PLAN_AUTHOR_NOTIFIER) notifier: PlanAuthorNotifier,
  ) {
    const codeHosts = new CodeHosts(reads, SecretBox.fromEnvironment(settings.dataDir));
    const logger = new Logger('MonitoringPlans');
    this.plans = new MonitoringPlans(bus, reads, codeHosts);
    this.comments = new PlanComments(bus, reads, codeHosts, notifier, (line) => logger.warn(line));
  }

  onModuleInit(): void {
    const service = monitoringPlansApi;
    this.kit.changelog(monitoringPlanSpec, monitoringRunsApi);
    this.registry.register(
      defineMethod(service, 'RecordPullRequestUpdated', { request: RecordPullRequestUpdatedRequest, response: RecordPullRequestUpdatedResponse }, 'write', async ({ principal, request }) => {
        const { plan, ...links } = await this.plans.recordPullRequest(actorOf(principal), request, PLANS);
        return { monitoringPlan: plan, ...links };
      }),
      defineMethod(service, 'RecordPullRequestFixLink', { request: RecordPullRequestFixLinkRequest, response: PullRequestLinkResponse }, 'write', async ({ principal, request }) => {
        const { plan, linkedIssues, promotedIssues } = await this.plans.recordPullRequest(actorOf(principal), { prUrl: request.prUrl, issue: request.issueName, requestId: request.requestId }, PLANS);
        return { monitoringPlan: plan, linkedIssues, promotedIssues };
      }),
      defineMethod(service, 'ActivateFromDeployment', { request: ActivateFromDeploymentRequest, response: ActivatePlansResponse }, 'write', async ({ principal, request }) => {
        const actor = actorOf(principal);
        const deployment = request.deploymentName ? checkDeployment(request.deploymentName) : undefined;
        const range = { repository: request.repository, environment: request.environment, deployedSha: request.deployedSha, baseSha: request.baseSha, deployment, deployTime: actor.now };
        return { activatedPlans: await this.plans.activateFromDeployment(actor, range, PLANS) };
      }),
      defineMethod(service, 'ActivatePlanFromDeployments', { request: ActivatePlanFromDeploymentsRequest, response: ActivatePlansResponse }, 'write', async ({ principal, request }) => ({
        activatedPlans: await this.plans.activatePlan(actorOf(principal), planNameOf(request), PLANS),
      })),
      defineMethod(service, 'PostPlanComment', { request: PostPlanCommentRequest, response: PostCommentResponse }, 'write', async ({ principal, request }) => {
        const { commentUrl } = await this.comments.postPlanComment(actorOf(principal), planNameOf(request), request.commentBody);
        return { commentUrl };
      }),
      defineMethod(service, 'PostInProgressComment', { request: PostInProgressCommentRequest, response: PostCommentResponse }, 'write', async ({ principal, request }) =>
        this.comments.postInProgressComment(actorOf(principal), planNameOf(request), PLANS),
      ),
    );
  }
}

function checkDeployment(name: string): string {
  const full = name.startsWith('deployments/') ? name : `deployments/${name}`;
  if (!/^deployments\/[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$/.test(full)) throw invalid(`deployment_name must look like 'deployments/{id}', got '${name.slice(0, 200)}'`);
  return full;
}

@Module({ imports: [ChangeMonitorModule], providers: [MonitoringPlanMethods, { provide: PLAN_AUTHOR_NOTIFIER, useFactory: chatDmNotifier, inject: [ChangeMonitorDms] }] })
export class MonitoringPlansModule {}

