import { Controller, Get, Header, Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, Reflector } from '@nestjs/core';
import { SPEC_METHODS, type SpecMethod, specMethodKey } from '@svc/contracts/catalog';
import { AREAS } from '@svc/application/areas';
import type { JsonSchema } from '@svc/infrastructure/openapi/dto-schema';
import { type DocumentedMethod, openApiDocument } from '@svc/infrastructure/openapi/openapi-document';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Public } from '../auth/principal';
import { EXTENSION_ROUTES } from '../history/extension-routes';
import { MethodRegistry } from '../http/method-registry';
import { routeFactsOf } from './route-facts';
import { DOCS_PAGE } from './docs-page';

/** The document, generated once when every module has registered its methods, then served as is. */
@Injectable()
export class OpenApiDocument implements OnApplicationBootstrap {
  private json = '';

  constructor(
    private readonly registry: MethodRegistry,
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    const served = new Map<string, DocumentedMethod>(this.registry.definitions().map((d) => [specMethodKey(d), d]));
    const document: JsonSchema = openApiDocument({
      methods: SPEC_METHODS,
      extensions: extensionsOf([...served.keys()]),
      served,
      resources: AREAS.flatMap((a) => a.resources.map((r) => r.api)),
      routeOf: routeFactsOf(this.discovery, this.reflector),
      ...packageFacts(),
    });
    this.json = JSON.stringify(document);
  }

  get text(): string {
    return this.json;
  }
}

@Controller()
export class OpenApiController {
  constructor(private readonly document: OpenApiDocument) {}

  @Public()
  @Get('openapi.json')
  @Header('content-type', 'application/json; charset=utf-8')
  openapi(): string {
    return this.document.text;
  }

  @Public()
  @Get('docs')
  @Header('content-type', 'text/html; charset=utf-8')
  docs(): string {
    return DOCS_PAGE;
  }
}

/**
 * Our methods beyond the spec's catalog: the REST extensions (history, as-of reads, watches) and every
 * other registered method, served on its RPC path (UpdateDeploymentStatus, IngestRows, ...).
 */
function extensionsOf(servedKeys: readonly string[]): SpecMethod[] {
  const known = new Set([...SPEC_METHODS, ...EXTENSION_ROUTES].map(specMethodKey));
  const rpcOnly = servedKeys
    .filter((key) => !known.has(key))
    .map((key): SpecMethod => {
      const slash = key.lastIndexOf('/');
      return { part: 1, area: 'extension', service: key.slice(0, slash), method: key.slice(slash + 1), rpc: true };
    });
  return [...EXTENSION_ROUTES, ...rpcOnly];
}

/** The version and license of the package the api runs from (the nearest package.json above this file). */
function packageFacts(): { version: string; license: string } {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: string; license?: string };
    return { version: String(pkg.version ?? '0.0.0'), license: String(pkg.license ?? 'UNLICENSED') };
  }
  return { version: '0.0.0', license: 'UNLICENSED' };
}

@Module({ imports: [DiscoveryModule], providers: [OpenApiDocument], controllers: [OpenApiController] })
export class OpenApiModule {}
