import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import type { Settings } from '@svc/infrastructure/config/env';
import { InfrastructureModule } from '@svc/infrastructure/nest/infrastructure.module';
import { AreasModule } from './areas/areas.module';
import { ArtifactsModule } from './artifacts/artifacts.module';
import { BlobsModule } from './artifacts/blobs.module';
import { ApiAuthGuard } from './auth/auth.guard';
import { AuthModule } from './auth/auth.module';
import { CatalogModule } from './catalog/catalog.module';
import { ChatModule } from './chat/chat-events.controller';
import { ConnectionsModule } from './connections/connections.module';
import { CQRS_HANDLERS } from './cqrs/handlers';
import { DeploymentsModule } from './deployments/deployments.module';
import { DeploymonitorModule } from './deploymonitor/deploymonitor.module';
import { HealthModule } from './health/health.controller';
import { ApiExceptionFilter } from './http/exception.filter';
import { MethodRegistry } from './http/method-registry';
import { RestController } from './http/rest.controller';
import { RpcController } from './http/rpc.controller';
import { IdentityModule } from './identity/identity.controller';
import { InvestigationsModule } from './investigations/investigations.module';
import { NotificationsModule } from './notifications/notifications.module';
import { ObservabilityModule } from './observability/observability.module';
import { StartupModule } from './operator-config/startup.service';
import { ResourceKit } from './resource-kit/resource-kit';
import { RolesModule } from './roles/roles.module';
import { RowsModule } from './rows/rows.module';
import { SessionsModule } from './sessions/sessions.module';
import { TriggersModule } from './triggers/triggers.module';

/** Shared mechanisms every area module uses: the buses, the method registry, the resource kit. */
@Global()
@Module({
  imports: [CqrsModule.forRoot(), AuthModule],
  providers: [MethodRegistry, ResourceKit, ...CQRS_HANDLERS],
  exports: [MethodRegistry, ResourceKit, CqrsModule],
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
      RolesModule,
      ConnectionsModule,
      DeploymentsModule,
      SessionsModule,
      TriggersModule,
      ChatModule,
      DeploymonitorModule,
      CatalogModule,
      NotificationsModule,
      BlobsModule,
      ArtifactsModule,
      InvestigationsModule,
      RowsModule,
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
