import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { ApplicationModule } from '@svc/application/application.module';
import type { Settings } from '@svc/infrastructure/config/env';
import { InfrastructureModule } from '@svc/infrastructure/nest/infrastructure.module';
import { AgentSlosModule } from './agentslos/agentslos.module';
import { AreasModule } from './areas/areas.module';
import { ArtifactsModule } from './artifacts/artifacts.module';
import { BlobsModule } from './artifacts/blobs.module';
import { ApiAuthGuard } from './auth/auth.guard';
import { AuthModule } from './auth/auth.module';
import { CatalogModule } from './catalog/catalog.module';
import { ChangeMonitorModule } from './changemonitor/change-monitor.module';
import { ChatModule } from './chat/chat-events.controller';
import { InvitationsModule } from './idp/invitations.module';
import { ConnectionsModule } from './connections/connections.module';
import { QUERY_HANDLERS } from './cqrs/handlers';
import { DeploymentsModule } from './deployments/deployments.module';
import { DeploymonitorModule } from './deploymonitor/deploymonitor.module';
import { HealthModule } from './health/health.controller';
import { HistoryModule } from './history/history.module';
import { ApiExceptionFilter } from './http/exception.filter';
import { MethodRegistry } from './http/method-registry';
import { RestController } from './http/rest.controller';
import { RpcController } from './http/rpc.controller';
import { IdentityModule } from './identity/identity.controller';
import { IndicatorsModule } from './indicators/indicators.module';
import { InvestigationsModule } from './investigations/investigations.module';
import { IssuesModule } from './issues/issues.module';
import { MonitoringPlansModule } from './monitoringplans/monitoring-plans.module';
import { NotificationsModule } from './notifications/notifications.module';
import { OpenApiModule } from './openapi/openapi.controller';
import { ObservabilityModule } from './observability/observability.module';
import { StartupModule } from './operator-config/startup.service';
import { ResourceKit } from './resource-kit/resource-kit';
import { RolesModule } from './roles/roles.module';
import { RowsModule } from './rows/rows.module';
import { SessionsModule } from './sessions/sessions.module';
import { SkillsBundlesModule } from './skillsbundles/skills-bundles.module';
import { TrackerModule } from './tracker/tracker-events.controller';
import { TriggersModule } from './triggers/triggers.module';
import { WatchModule } from './watch/watch.module';

/** Shared mechanisms every area module uses: the buses (the application layer's), the method registry, the resource kit. */
@Global()
@Module({
  imports: [ApplicationModule, AuthModule],
  providers: [MethodRegistry, ResourceKit, ...QUERY_HANDLERS],
  exports: [MethodRegistry, ResourceKit, ApplicationModule],
})
class ApiCoreModule {}

export function appModule(settings: Settings) {
  @Module({
    imports: [
      InfrastructureModule.forRoot(settings),
      ApiCoreModule,
      StartupModule,
      HealthModule,
      ObservabilityModule.forRoot(settings),
      IdentityModule,
      AreasModule,
      AgentSlosModule,
      IssuesModule,
      RolesModule,
      ConnectionsModule,
      DeploymentsModule,
      SessionsModule,
      TriggersModule,
      SkillsBundlesModule,
      MonitoringPlansModule,
      ChatModule,
      TrackerModule,
      InvitationsModule,
      ChangeMonitorModule,
      DeploymonitorModule,
      CatalogModule,
      NotificationsModule,
      BlobsModule,
      ArtifactsModule,
      InvestigationsModule,
      IndicatorsModule,
      RowsModule,
      HistoryModule,
      WatchModule,
      OpenApiModule,
    ],
    controllers: [RpcController, RestController],
    providers: [
      { provide: APP_GUARD, useClass: ApiAuthGuard },
      { provide: APP_FILTER, useClass: ApiExceptionFilter },
    ],
  })
  class AppModule {}
  return AppModule;
}
