/**
 * Every method named in the three spec documents (/work/shared/spec, "Endpoints" sections), in spec
 * order. This list is the single source of truth for docs/api-coverage.md (see catalog.spec.ts).
 *
 * Conventions:
 * - `service` is the fully qualified RPC service exactly as the spec prefixes it. Where the spec gives
 *   REST paths only (or no path at all), `service` is a pseudo service made from the spec's area and
 *   versioning table; those are marked "pseudo service" below and `rpc` is false for their methods.
 * - `rpc` is true only when the spec gives (directly or through a section prefix) the RPC path
 *   `POST /<service>/<method>`.
 * - `rest` lists the REST forms exactly as the spec writes them.
 * - `area` is the lowercase, hyphen-free folder name used in every layer.
 */
export interface SpecMethod {
  part: 1 | 2 | 3;
  area: string;
  service: string;
  method: string;
  rpc: boolean;
  rest?: string[];
  /** The spec names the method but does not show its request and/or response shapes (or its path). */
  shapeNotShown?: true;
  /** The spec lists a route or a whole service without naming the method; the name here is ours. */
  methodNameInvented?: true;
  /** Frozen write: must fail FAILED_PRECONDITION with reason FEATURE_READ_ONLY. */
  frozen?: true;
  /** Kept for backward compatibility (legacy) or superseded by a newer version (deprecated). */
  lifecycle?: 'legacy' | 'deprecated';
}

// ---- Pseudo services (the spec gives REST paths only, or no path) ----
/** Pseudo service: Identity (part 1), REST only; package from the versioning table (`auth` v1). */
export const AUTH_SERVICE = 'svc.auth.v1.AuthService';
/** Pseudo service: Connections read endpoints (part 1), REST only; package `connections` v1. */
export const CONNECTIONS_SERVICE = 'svc.connections.v1.ConnectionsService';
/** Pseudo service: Integration helper endpoints (part 1, Connections area), REST only. */
export const INTEGRATION_HELPERS_SERVICE = 'svc.connections.v1.IntegrationHelpersService';
/** Pseudo service: artifact upload `PUT /v1/artifacts/{sha256}` (part 2, Investigations rules). */
export const ARTIFACTS_SERVICE = 'svc.artifacts.v1.ArtifactsService';
/** Pseudo service: the change-monitor notifications service (part 2); its paths are not shown. */
export const CHANGE_MONITOR_SERVICE = 'svc.monitoring_plans.v1.ChangeMonitorNotificationsService';
/** Pseudo qualification of the legacy `MonitoringRunService` (part 2; package not shown). */
export const MONITORING_RUN_SERVICE = 'svc.monitoring_plans.v1.MonitoringRunService';
/** Pseudo service: deprecated customers v1 (part 1 versioning table); no path or method shown. */
export const CUSTOMERS_V1_SERVICE = 'svc.customers.v1.CustomersService';
/** Pseudo service: frozen indicators v2 surface (package `svc.observability.v1`, REST `/v2`). */
export const INDICATORS_V2_SERVICE = 'svc.observability.v1.IndicatorsService';
/** Pseudo service: frozen indicator relations v2 (paths not shown). */
export const INDICATOR_RELATIONS_V2_SERVICE = 'svc.observability.v1.IndicatorRelationsService';
/** Pseudo service: service catalog (package `svc.observability.v1`, REST `/v1/catalog`). */
export const CATALOG_SERVICE = 'svc.observability.v1.CatalogService';

export const SPEC_METHODS: readonly SpecMethod[] = [
  // ======================= Part 1: conventions, access, integrations =======================
  // Identity (REST only)
  { part: 1, area: 'identity', service: AUTH_SERVICE, method: 'GetAuth', rpc: false, rest: ['GET /v1/auth'] },
  { part: 1, area: 'identity', service: AUTH_SERVICE, method: 'MintAgentSessionToken', rpc: false, rest: ['POST /v1/auth/session-token'] },
  // Connections (REST only)
  { part: 1, area: 'connections', service: CONNECTIONS_SERVICE, method: 'GetConnection', rpc: false, rest: ['GET /v1/connections/{connection_id}'] },
  { part: 1, area: 'connections', service: CONNECTIONS_SERVICE, method: 'ListConnections', rpc: false, rest: ['GET /v1/connections'] },
  { part: 1, area: 'connections', service: CONNECTIONS_SERVICE, method: 'ListConnectionTypes', rpc: false, rest: ['GET /v1/connection-types'] },
  // Integration helper endpoints (REST only)
  { part: 1, area: 'integrations', service: INTEGRATION_HELPERS_SERVICE, method: 'StartChatOAuth', rpc: false, rest: ['POST /v1/chat-connections:startOAuth'], shapeNotShown: true },
  { part: 1, area: 'integrations', service: INTEGRATION_HELPERS_SERVICE, method: 'HandleChatEvent', rpc: false, rest: ['POST /v1/chat-connections:handleEvent'], shapeNotShown: true },
  { part: 1, area: 'integrations', service: INTEGRATION_HELPERS_SERVICE, method: 'StartCodehostOAuth', rpc: false, rest: ['POST /v1/codehost-connections:startOAuth'] },
  { part: 1, area: 'integrations', service: INTEGRATION_HELPERS_SERVICE, method: 'ListRepositories', rpc: false, rest: ['POST /v1/codehost-connections:listRepositories'] },
  { part: 1, area: 'integrations', service: INTEGRATION_HELPERS_SERVICE, method: 'ListRepositoryBranches', rpc: false, rest: ['POST /v1/codehost-connections:listBranches'] },
  { part: 1, area: 'integrations', service: INTEGRATION_HELPERS_SERVICE, method: 'StartTrackerOAuth', rpc: false, rest: ['POST /v1/tracker-connections:startOAuth'], shapeNotShown: true },
  { part: 1, area: 'integrations', service: INTEGRATION_HELPERS_SERVICE, method: 'HandleTrackerEvent', rpc: false, rest: ['POST /v1/tracker-connections:handleEvent'], shapeNotShown: true },
  { part: 1, area: 'integrations', service: INTEGRATION_HELPERS_SERVICE, method: 'CreateOrganizationInvitation', rpc: false, rest: ['POST /v1/idp-connections:createOrganizationInvitation'], shapeNotShown: true },
  { part: 1, area: 'integrations', service: INTEGRATION_HELPERS_SERVICE, method: 'RegisterIncidentMgrWebhook', rpc: false, rest: ['POST /v1/connections/{connection}:registerIncidentmgrWebhook'], shapeNotShown: true },
  { part: 1, area: 'integrations', service: INTEGRATION_HELPERS_SERVICE, method: 'RegisterPagerWebhook', rpc: false, rest: ['POST /v1/pager-connections:registerWebhook'] },
  // Triggers (prefix /svc.triggers.v1.TriggersService/)
  { part: 1, area: 'triggers', service: 'svc.triggers.v1.TriggersService', method: 'CreateTrigger', rpc: true },
  { part: 1, area: 'triggers', service: 'svc.triggers.v1.TriggersService', method: 'GetTrigger', rpc: true },
  { part: 1, area: 'triggers', service: 'svc.triggers.v1.TriggersService', method: 'UpdateTrigger', rpc: true },
  { part: 1, area: 'triggers', service: 'svc.triggers.v1.TriggersService', method: 'DeleteTrigger', rpc: true },
  { part: 1, area: 'triggers', service: 'svc.triggers.v1.TriggersService', method: 'ListTriggers', rpc: true },
  { part: 1, area: 'triggers', service: 'svc.triggers.v1.TriggersService', method: 'InvokeTrigger', rpc: true },
  // Roles (prefix /svc.rbac.v1.RolesService/)
  { part: 1, area: 'roles', service: 'svc.rbac.v1.RolesService', method: 'CreateRole', rpc: true },
  { part: 1, area: 'roles', service: 'svc.rbac.v1.RolesService', method: 'GetRole', rpc: true },
  { part: 1, area: 'roles', service: 'svc.rbac.v1.RolesService', method: 'ListRoles', rpc: true },
  { part: 1, area: 'roles', service: 'svc.rbac.v1.RolesService', method: 'UpdateRole', rpc: true },
  { part: 1, area: 'roles', service: 'svc.rbac.v1.RolesService', method: 'DeleteRole', rpc: true },
  { part: 1, area: 'roles', service: 'svc.rbac.v1.RolesService', method: 'ListUsersWithPermission', rpc: true },
  { part: 1, area: 'roles', service: 'svc.rbac.v1.RolesService', method: 'SetDefaultRole', rpc: true },
  { part: 1, area: 'roles', service: 'svc.rbac.v1.RolesService', method: 'AssignRoles', rpc: true },
  // Skills bundles (prefix /svc.skills_bundles.v1.SkillsBundlesService/)
  { part: 1, area: 'skillsbundles', service: 'svc.skills_bundles.v1.SkillsBundlesService', method: 'CreateSkillsBundle', rpc: true },
  { part: 1, area: 'skillsbundles', service: 'svc.skills_bundles.v1.SkillsBundlesService', method: 'GetSkillsBundle', rpc: true },
  { part: 1, area: 'skillsbundles', service: 'svc.skills_bundles.v1.SkillsBundlesService', method: 'UpdateSkillsBundle', rpc: true },
  { part: 1, area: 'skillsbundles', service: 'svc.skills_bundles.v1.SkillsBundlesService', method: 'DeleteSkillsBundle', rpc: true },
  { part: 1, area: 'skillsbundles', service: 'svc.skills_bundles.v1.SkillsBundlesService', method: 'ListSkillsBundles', rpc: true },
  { part: 1, area: 'skillsbundles', service: 'svc.skills_bundles.v1.SkillsBundlesService', method: 'ListSkillsBundleSkills', rpc: true },
  { part: 1, area: 'skillsbundles', service: 'svc.skills_bundles.v1.SkillsBundlesService', method: 'PreviewSkillsBundleSkills', rpc: true },
  // Notification stream (RPC and REST)
  { part: 1, area: 'notifications', service: 'svc.notifications.v1.NotificationService', method: 'Subscribe', rpc: true, rest: ['POST /v1/notifications:subscribe'] },
  { part: 1, area: 'notifications', service: 'svc.notifications.v1.NotificationService', method: 'Publish', rpc: true, rest: ['POST /v1/notifications:publish'] },

  // ============ Part 2: agents, deployments, investigations, plans, notes, known issues, runbooks ============
  // Agents and sessions (prefix /svc.nxagent.v2.AgentService/, RPC-style POST for every row of the table)
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'CreateAgent', rpc: true },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'GetAgent', rpc: true },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'ListAgents', rpc: true },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'UpdateAgent', rpc: true },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'DeleteAgent', rpc: true },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'UndeleteAgent', rpc: true },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'CreateSession', rpc: true },
  // The agents table gives LaunchBacktest a REST path; unlike monitoring plans, the agents prefix has no
  // "unless a REST path is given" clause, so the RPC path is served as well.
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'LaunchBacktest', rpc: true, rest: ['POST /v1/agents:launchBacktest'] },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'GetSession', rpc: true },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'UpdateSession', rpc: true },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'DeleteSession', rpc: true },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'ListSessions', rpc: true },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'DescribeSessions', rpc: true },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'Write', rpc: true },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'Read', rpc: true },
  { part: 2, area: 'agents', service: 'svc.nxagent.v2.AgentService', method: 'GetArtifact', rpc: true, shapeNotShown: true },
  // Deployments (prefix /svc.deployments.v1.DeploymentsService/)
  { part: 2, area: 'deployments', service: 'svc.deployments.v1.DeploymentsService', method: 'CreateDeployment', rpc: true },
  { part: 2, area: 'deployments', service: 'svc.deployments.v1.DeploymentsService', method: 'GetDeployment', rpc: true },
  { part: 2, area: 'deployments', service: 'svc.deployments.v1.DeploymentsService', method: 'ListDeployments', rpc: true },
  { part: 2, area: 'deployments', service: 'svc.deployments.v1.DeploymentsService', method: 'ListDeploymentStatusEvents', rpc: true },
  { part: 2, area: 'deployments', service: 'svc.deployments.v1.DeploymentsService', method: 'GetDeploymentEnvironment', rpc: true },
  { part: 2, area: 'deployments', service: 'svc.deployments.v1.DeploymentsService', method: 'ListDeploymentEnvironments', rpc: true },
  { part: 2, area: 'deployments', service: 'svc.deployments.v1.DeploymentsService', method: 'UpdateDeploymentEnvironment', rpc: true },
  // Deployment monitor evaluations (prefix /svc.deploy_monitor.v1.DeploymentMonitorEvaluationService/)
  { part: 2, area: 'deploymonitor', service: 'svc.deploy_monitor.v1.DeploymentMonitorEvaluationService', method: 'GetDeploymentMonitorEvaluation', rpc: true },
  { part: 2, area: 'deploymonitor', service: 'svc.deploy_monitor.v1.DeploymentMonitorEvaluationService', method: 'ListDeploymentMonitorEvaluations', rpc: true },
  // Investigations (prefix /svc.investigations.v1.InvestigationService/)
  { part: 2, area: 'investigations', service: 'svc.investigations.v1.InvestigationService', method: 'CreateInvestigation', rpc: true },
  { part: 2, area: 'investigations', service: 'svc.investigations.v1.InvestigationService', method: 'GetInvestigation', rpc: true },
  { part: 2, area: 'investigations', service: 'svc.investigations.v1.InvestigationService', method: 'ListInvestigations', rpc: true },
  { part: 2, area: 'investigations', service: 'svc.investigations.v1.InvestigationService', method: 'UpdateInvestigation', rpc: true },
  // Artifact upload, named only by its route in the CreateInvestigation rules (request body not shown).
  { part: 2, area: 'artifacts', service: ARTIFACTS_SERVICE, method: 'UploadArtifact', rpc: false, rest: ['PUT /v1/artifacts/{sha256}'], shapeNotShown: true, methodNameInvented: true },
  // Monitoring plans (prefix /svc.monitoring_plans.v1.MonitoringPlanService/ unless a REST path is given)
  { part: 2, area: 'monitoringplans', service: 'svc.monitoring_plans.v1.MonitoringPlanService', method: 'GetMonitoringPlan', rpc: true },
  { part: 2, area: 'monitoringplans', service: 'svc.monitoring_plans.v1.MonitoringPlanService', method: 'ListMonitoringPlans', rpc: true },
  { part: 2, area: 'monitoringplans', service: 'svc.monitoring_plans.v1.MonitoringPlanService', method: 'PostPlanComment', rpc: false, rest: ['POST /v1/monitoring-plans/{plan_id}:postComment'] },
  { part: 2, area: 'monitoringplans', service: 'svc.monitoring_plans.v1.MonitoringPlanService', method: 'PostInProgressComment', rpc: false, rest: ['POST /v1/monitoring-plans/{plan_id}:postInProgressComment'] },
  { part: 2, area: 'monitoringplans', service: 'svc.monitoring_plans.v1.MonitoringPlanService', method: 'ActivateFromDeployment', rpc: true },
  { part: 2, area: 'monitoringplans', service: 'svc.monitoring_plans.v1.MonitoringPlanService', method: 'ActivatePlanFromDeployments', rpc: true },
  { part: 2, area: 'monitoringplans', service: 'svc.monitoring_plans.v1.MonitoringPlanService', method: 'RecordPullRequestFixLink', rpc: false, rest: ['POST /v1/monitoring-plans:recordPullRequestFixLink'] },
  { part: 2, area: 'monitoringplans', service: 'svc.monitoring_plans.v1.MonitoringPlanService', method: 'RecordPullRequestUpdated', rpc: false, rest: ['POST /v1/monitoring-plans:recordPullRequestUpdated'] },
  // Change-monitor notifications service: methods named, paths and shapes not shown.
  { part: 2, area: 'changemonitor', service: CHANGE_MONITOR_SERVICE, method: 'GetMyChangeMonitorSetup', rpc: false, shapeNotShown: true },
  { part: 2, area: 'changemonitor', service: CHANGE_MONITOR_SERVICE, method: 'UpdateMyChangeMonitorNotificationPreference', rpc: false, shapeNotShown: true },
  { part: 2, area: 'changemonitor', service: CHANGE_MONITOR_SERVICE, method: 'VerifyMyChangeMonitorSlackDM', rpc: false, shapeNotShown: true },
  // Legacy MonitoringRunService: methods named, paths and shapes not shown.
  { part: 2, area: 'monitoringplans', service: MONITORING_RUN_SERVICE, method: 'GetMonitoringRun', rpc: false, shapeNotShown: true, lifecycle: 'legacy' },
  { part: 2, area: 'monitoringplans', service: MONITORING_RUN_SERVICE, method: 'ListMonitoringRuns', rpc: false, shapeNotShown: true, lifecycle: 'legacy' },
  // Notes (prefix /svc.notes.v1.NotesService/)
  { part: 2, area: 'notes', service: 'svc.notes.v1.NotesService', method: 'CreateNote', rpc: true },
  { part: 2, area: 'notes', service: 'svc.notes.v1.NotesService', method: 'GetNote', rpc: true },
  { part: 2, area: 'notes', service: 'svc.notes.v1.NotesService', method: 'UpdateNote', rpc: true },
  { part: 2, area: 'notes', service: 'svc.notes.v1.NotesService', method: 'DeleteNote', rpc: true },
  { part: 2, area: 'notes', service: 'svc.notes.v1.NotesService', method: 'ListNotes', rpc: true },
  // Known issues (prefix /svc.knownissues.v1.KnownIssuesService/)
  { part: 2, area: 'knownissues', service: 'svc.knownissues.v1.KnownIssuesService', method: 'CreateKnownIssue', rpc: true },
  { part: 2, area: 'knownissues', service: 'svc.knownissues.v1.KnownIssuesService', method: 'GetKnownIssue', rpc: true },
  { part: 2, area: 'knownissues', service: 'svc.knownissues.v1.KnownIssuesService', method: 'UpdateKnownIssue', rpc: true },
  { part: 2, area: 'knownissues', service: 'svc.knownissues.v1.KnownIssuesService', method: 'DeleteKnownIssue', rpc: true },
  { part: 2, area: 'knownissues', service: 'svc.knownissues.v1.KnownIssuesService', method: 'ListKnownIssues', rpc: true },
  // Runbooks (prefix /svc.runbooks.v1.RunbooksService/)
  { part: 2, area: 'runbooks', service: 'svc.runbooks.v1.RunbooksService', method: 'CreateRunbook', rpc: true },
  { part: 2, area: 'runbooks', service: 'svc.runbooks.v1.RunbooksService', method: 'GetRunbook', rpc: true },
  { part: 2, area: 'runbooks', service: 'svc.runbooks.v1.RunbooksService', method: 'UpdateRunbook', rpc: true },
  { part: 2, area: 'runbooks', service: 'svc.runbooks.v1.RunbooksService', method: 'DeleteRunbook', rpc: true },
  { part: 2, area: 'runbooks', service: 'svc.runbooks.v1.RunbooksService', method: 'ListRunbooks', rpc: true },

  // ======= Part 3: issues, customers, tags, indicators, agent SLOs, service catalog =======
  // Issues and the issue notification policy
  { part: 3, area: 'issues', service: 'svc.issues.v1.IssuesService', method: 'GetIssue', rpc: true },
  { part: 3, area: 'issues', service: 'svc.issues.v1.IssuesService', method: 'ListIssues', rpc: true },
  { part: 3, area: 'issues', service: 'svc.issues.v2.IssueValidationService', method: 'ValidateIssueEvidence', rpc: true, rest: ['POST /v2/issues:validateEvidence'] },
  { part: 3, area: 'notificationpolicy', service: 'svc.issuenotificationpolicy.v1.IssueNotificationPolicyService', method: 'GetIssueNotificationPolicy', rpc: true },
  { part: 3, area: 'notificationpolicy', service: 'svc.issuenotificationpolicy.v1.IssueNotificationPolicyService', method: 'UpdateIssueNotificationPolicy', rpc: true },
  // Customers (prefix /svc.customers.v2.CustomersService/)
  { part: 3, area: 'customers', service: 'svc.customers.v2.CustomersService', method: 'CreateCustomer', rpc: true },
  { part: 3, area: 'customers', service: 'svc.customers.v2.CustomersService', method: 'GetCustomer', rpc: true },
  { part: 3, area: 'customers', service: 'svc.customers.v2.CustomersService', method: 'UpdateCustomer', rpc: true },
  { part: 3, area: 'customers', service: 'svc.customers.v2.CustomersService', method: 'DeleteCustomer', rpc: true },
  { part: 3, area: 'customers', service: 'svc.customers.v2.CustomersService', method: 'ListCustomers', rpc: true },
  // Customers v1: "v1 exists and is deprecated" (part 1, Versioning). No path, method or shape is shown;
  // the method names mirror v2.
  { part: 3, area: 'customers', service: CUSTOMERS_V1_SERVICE, method: 'CreateCustomer', rpc: false, shapeNotShown: true, methodNameInvented: true, lifecycle: 'deprecated' },
  { part: 3, area: 'customers', service: CUSTOMERS_V1_SERVICE, method: 'GetCustomer', rpc: false, shapeNotShown: true, methodNameInvented: true, lifecycle: 'deprecated' },
  { part: 3, area: 'customers', service: CUSTOMERS_V1_SERVICE, method: 'UpdateCustomer', rpc: false, shapeNotShown: true, methodNameInvented: true, lifecycle: 'deprecated' },
  { part: 3, area: 'customers', service: CUSTOMERS_V1_SERVICE, method: 'DeleteCustomer', rpc: false, shapeNotShown: true, methodNameInvented: true, lifecycle: 'deprecated' },
  { part: 3, area: 'customers', service: CUSTOMERS_V1_SERVICE, method: 'ListCustomers', rpc: false, shapeNotShown: true, methodNameInvented: true, lifecycle: 'deprecated' },
  // Tags (prefix /svc.tags.v1.TagsService/)
  { part: 3, area: 'tags', service: 'svc.tags.v1.TagsService', method: 'CreateTag', rpc: true },
  { part: 3, area: 'tags', service: 'svc.tags.v1.TagsService', method: 'GetTag', rpc: true },
  { part: 3, area: 'tags', service: 'svc.tags.v1.TagsService', method: 'UpdateTag', rpc: true },
  { part: 3, area: 'tags', service: 'svc.tags.v1.TagsService', method: 'DeleteTag', rpc: true },
  { part: 3, area: 'tags', service: 'svc.tags.v1.TagsService', method: 'ListTags', rpc: true },
  // Indicators v1 (RPC prefix /svc.goals.v1.IndicatorsService/, relations /svc.goals.v1.IndicatorRelationsService/; REST alternatives)
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorsService', method: 'CreateIndicator', rpc: true, rest: ['POST /v1/indicators'] },
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorsService', method: 'GetIndicator', rpc: true, rest: ['GET /v1/{name=indicators/*}'] },
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorsService', method: 'BatchGetIndicators', rpc: true, rest: ['POST /v1/indicators:batchGet'] },
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorsService', method: 'ListIndicators', rpc: true, rest: ['GET /v1/indicators'] },
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorsService', method: 'UpdateIndicator', rpc: true, rest: ['PATCH /v1/{indicator.name=indicators/*}'] },
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorsService', method: 'DeleteIndicator', rpc: true, rest: ['DELETE /v1/{name=indicators/*}'] },
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorsService', method: 'UndeleteIndicator', rpc: true, rest: ['POST /v1/{name=indicators/*}:undelete'] },
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorsService', method: 'PurgeIndicators', rpc: true, rest: ['POST /v1/indicators:purge'] },
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorsService', method: 'ListIndicatorActivities', rpc: true, rest: ['GET /v1/{parent=indicators/*}/activities'] },
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorsService', method: 'CompileIndicatorQuery', rpc: true, rest: ['POST /v1/{name=indicators/*}:compileQuery'] },
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorsService', method: 'ReportIndicatorQueryError', rpc: true, rest: ['POST /v1/{name=indicators/*}:reportQueryError'] },
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorRelationsService', method: 'CreateIndicatorRelation', rpc: true, rest: ['POST /v1/indicatorRelations'] },
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorRelationsService', method: 'ListIndicatorRelations', rpc: true, rest: ['GET /v1/indicatorRelations'] },
  { part: 3, area: 'indicators', service: 'svc.goals.v1.IndicatorRelationsService', method: 'DeleteIndicatorRelation', rpc: true, shapeNotShown: true },
  // Indicators v2 (frozen writes). The spec lists routes only; method names mirror v1.
  { part: 3, area: 'indicatorsv2', service: INDICATORS_V2_SERVICE, method: 'ListIndicators', rpc: false, rest: ['GET /v2/indicators'], methodNameInvented: true },
  { part: 3, area: 'indicatorsv2', service: INDICATORS_V2_SERVICE, method: 'GetIndicator', rpc: false, rest: ['GET /v2/{name=indicators-v2/*}'], methodNameInvented: true },
  { part: 3, area: 'indicatorsv2', service: INDICATOR_RELATIONS_V2_SERVICE, method: 'ListIndicatorRelations', rpc: false, shapeNotShown: true },
  { part: 3, area: 'indicatorsv2', service: INDICATORS_V2_SERVICE, method: 'CompileIndicatorQuery', rpc: false, rest: ['POST /v2/{name=indicators-v2/*}:compileQuery'], methodNameInvented: true },
  { part: 3, area: 'indicatorsv2', service: INDICATORS_V2_SERVICE, method: 'CreateIndicator', rpc: false, rest: ['POST /v2/indicators'], methodNameInvented: true, frozen: true },
  { part: 3, area: 'indicatorsv2', service: INDICATORS_V2_SERVICE, method: 'UpdateIndicator', rpc: false, rest: ['PATCH /v2/{indicator.name=indicators-v2/*}'], methodNameInvented: true, frozen: true },
  { part: 3, area: 'indicatorsv2', service: INDICATORS_V2_SERVICE, method: 'DeleteIndicator', rpc: false, rest: ['DELETE /v2/{name=indicators-v2/*}'], methodNameInvented: true, frozen: true },
  { part: 3, area: 'indicatorsv2', service: INDICATORS_V2_SERVICE, method: 'ReportIndicatorQueryError', rpc: false, rest: ['POST /v2/{name=indicators-v2/*}:reportQueryError'], methodNameInvented: true, frozen: true },
  { part: 3, area: 'indicatorsv2', service: INDICATOR_RELATIONS_V2_SERVICE, method: 'CreateIndicatorRelation', rpc: false, shapeNotShown: true, methodNameInvented: true, frozen: true },
  { part: 3, area: 'indicatorsv2', service: INDICATOR_RELATIONS_V2_SERVICE, method: 'DeleteIndicatorRelation', rpc: false, shapeNotShown: true, methodNameInvented: true, frozen: true },
  // Agent SLOs (prefix /svc.agentslos.v1.AgentSlosService/; REST alternatives)
  { part: 3, area: 'agentslos', service: 'svc.agentslos.v1.AgentSlosService', method: 'CreateAgentSlo', rpc: true, rest: ['POST /v1/agents/{agent}/slos'] },
  { part: 3, area: 'agentslos', service: 'svc.agentslos.v1.AgentSlosService', method: 'GetAgentSlo', rpc: true, rest: ['GET /v1/agents/{agent}/slos/{slo}'] },
  { part: 3, area: 'agentslos', service: 'svc.agentslos.v1.AgentSlosService', method: 'UpdateAgentSlo', rpc: true, rest: ['PATCH /v1/agents/{agent}/slos/{slo}'] },
  { part: 3, area: 'agentslos', service: 'svc.agentslos.v1.AgentSlosService', method: 'DeleteAgentSlo', rpc: true, rest: ['DELETE /v1/agents/{agent}/slos/{slo}'] },
  { part: 3, area: 'agentslos', service: 'svc.agentslos.v1.AgentSlosService', method: 'ListAgentSlos', rpc: true, rest: ['GET /v1/agents/{agent}/slos'] },
  { part: 3, area: 'agentslos', service: 'svc.agentslos.v1.AgentSlosService', method: 'ListAgentSloRecords', rpc: true, rest: ['GET /v1/agents/{agent}/slos/{slo}/records'] },
  { part: 3, area: 'agentslos', service: 'svc.agentslos.v1.AgentSlosService', method: 'RecordSloEvaluation', rpc: true, rest: ['POST /v1/agents/{agent}/slos/{slo}:record'] },
  // Service catalog: reads available
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'GetService', rpc: false, rest: ['GET /v1/catalog/{name=services/*}'] },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'ListServices', rpc: false, rest: ['GET /v1/catalog/services'] },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'GetServiceDimension', rpc: false, rest: ['GET /v1/catalog/{name=services/*/dimensions/*}'] },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'ListServiceDimensions', rpc: false, rest: ['GET /v1/catalog/{parent=services/*}/dimensions'] },
  { part: 3, area: 'catalog', service: 'svc.objectives.v1.ServicesService', method: 'ListServiceRevisions', rpc: true, rest: ['GET /v1/{parent=services/*}/revisions'], lifecycle: 'legacy' },
  { part: 3, area: 'catalog', service: 'svc.objectives.v1.ServicesService', method: 'GetServiceRevision', rpc: true, rest: ['GET /v1/{name=services/*/revisions/*}'], lifecycle: 'legacy' },
  // Service catalog: frozen writes (FAILED_PRECONDITION, reason FEATURE_READ_ONLY)
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'CreateService', rpc: false, rest: ['POST /v1/catalog/services'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'UpdateService', rpc: false, rest: ['PATCH /v1/catalog/{service.name=services/*}'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'DeleteService', rpc: false, rest: ['DELETE /v1/catalog/{name=services/*}'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'RecommendService', rpc: false, rest: ['POST /v1/catalog/services:recommend'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'AcceptService', rpc: false, rest: ['POST /v1/catalog/{name=services/*}:accept'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'ArchiveService', rpc: false, rest: ['POST /v1/catalog/{name=services/*}:archive'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'RestoreService', rpc: false, rest: ['POST /v1/catalog/{name=services/*}:restore'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'RecommendServiceObservability', rpc: false, rest: ['POST /v1/catalog/{parent=services/*}:recommendObservability'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'RecreateServiceExpertSession', rpc: false, rest: ['POST /v1/catalog/{name=services/*}:recreateExpertSession'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'RefreshServiceContributors', rpc: false, rest: ['POST /v1/catalog/{name=services/*}:refreshContributors'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'CreateServiceDimension', rpc: false, rest: ['POST /v1/catalog/{parent=services/*}/dimensions'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'UpdateServiceDimension', rpc: false, rest: ['PATCH /v1/catalog/{service_dimension.name=services/*/dimensions/*}'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'DeleteServiceDimension', rpc: false, rest: ['DELETE /v1/catalog/{name=services/*/dimensions/*}'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'AcceptServiceDimension', rpc: false, rest: ['POST /v1/catalog/{name=services/*/dimensions/*}:accept'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'ArchiveServiceDimension', rpc: false, rest: ['POST /v1/catalog/{name=services/*/dimensions/*}:archive'], frozen: true },
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'RestoreServiceDimension', rpc: false, rest: ['POST /v1/catalog/{name=services/*/dimensions/*}:restore'], frozen: true },
  // "Providers can be exported the same way from /v1/catalog/providers; their request and response shapes are not shown."
  { part: 3, area: 'catalog', service: CATALOG_SERVICE, method: 'ListProviders', rpc: false, rest: ['GET /v1/catalog/providers'], shapeNotShown: true, methodNameInvented: true },
];

/** Fully qualified services that the spec gives RPC paths for. */
export const SPEC_SERVICES: ReadonlySet<string> = new Set(SPEC_METHODS.filter((m) => m.rpc).map((m) => m.service));

/** `service/Method`, the key used in docs/api-coverage.md. */
export function specMethodKey(m: Pick<SpecMethod, 'service' | 'method'>): string {
  return `${m.service}/${m.method}`;
}

/** The spec's methods by `service/Method` (specMethodKey): a request finds its method with one lookup, not a scan. */
export const SPEC_METHOD_BY_KEY: ReadonlyMap<string, SpecMethod> = new Map(SPEC_METHODS.map((m) => [specMethodKey(m), m]));

/** Every route of a method: the RPC path first (when the spec gives one), then its REST forms. */
export function specRoutes(m: SpecMethod): string[] {
  return [...(m.rpc ? [`POST /${m.service}/${m.method}`] : []), ...(m.rest ?? [])];
}
