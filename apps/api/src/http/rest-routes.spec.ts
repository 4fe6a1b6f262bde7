import { SPEC_METHODS } from '@svc/contracts/catalog';
import { compileRoute, RestRouter, restRequest } from './rest-routes';
import { EXTENSION_ROUTES } from '../history/extension-routes';

const router = new RestRouter(SPEC_METHODS);
const call = (verb: string, path: string) => {
  const match = router.match(verb, path);
  return match && { method: match.route.method, params: match.params };
};

describe('REST routes from the spec catalog', () => {
  it('binds simple and patterned path variables', () => {
    expect(call('GET', '/v1/connections/warehouse')).toEqual({ method: 'GetConnection', params: { connection_id: 'warehouse' } });
    expect(call('GET', '/v1/catalog/services/checkout')).toEqual({ method: 'GetService', params: { name: 'services/checkout' } });
    expect(call('GET', '/v1/catalog/services/checkout/dimensions/region')).toEqual({
      method: 'GetServiceDimension',
      params: { name: 'services/checkout/dimensions/region' },
    });
    expect(call('GET', '/v1/services/checkout/revisions')).toEqual({ method: 'ListServiceRevisions', params: { parent: 'services/checkout' } });
  });

  it('tells collection routes, custom actions and verbs apart', () => {
    expect(call('GET', '/v1/catalog/services')?.method).toBe('ListServices');
    expect(call('POST', '/v1/catalog/services')?.method).toBe('CreateService');
    expect(call('POST', '/v1/catalog/services:recommend')?.method).toBe('RecommendService');
    expect(call('POST', '/v1/catalog/services/checkout:accept')).toEqual({ method: 'AcceptService', params: { name: 'services/checkout' } });
    expect(call('DELETE', '/v1/catalog/services/checkout')?.method).toBe('DeleteService');
    expect(call('GET', '/v1/catalog/services/checkout:accept')).toBeUndefined();
  });

  it('never lets a variable span segments or swallow a custom action', () => {
    expect(call('GET', '/v1/connections/a/b')).toBeUndefined();
    expect(call('GET', '/v1/catalog/services/a/b')).toBeUndefined();
    expect(router.hasPath('/v1/catalog/services/checkout')).toBe(true);
    expect(router.hasPath('/v1/nothing')).toBe(false);
    // An escaped slash is a slash: no route has `/v1/connections/a/b` under any verb.
    expect(call('GET', '/v1/connections/a%2Fb')).toBeUndefined();
    expect(router.hasPath('/v1/connections/a%2Fb')).toBe(false);
    expect(router.hasPath('/v1/connections/%E0%A4%A')).toBe(false);
  });

  it('merges body, query and path into one request; a resource.name variable nests the body', () => {
    const get = router.match('GET', '/v1/catalog/services/checkout/dimensions')!;
    expect(restRequest(get, { showDeleted: 'true' }, undefined)).toEqual({ parent: 'services/checkout', showDeleted: 'true' });
    const patch = router.match('PATCH', '/v1/catalog/services/checkout')!;
    expect(restRequest(patch, { update_mask: 'display_name' }, { display_name: 'X', name: 'ignored' })).toEqual({
      service: { display_name: 'X', name: 'services/checkout' },
      update_mask: 'display_name',
    });
    const route = compileRoute({ service: 's', method: 'M' }, 'POST /v1/things/{thing_id}:act');
    expect(restRequest({ route, params: { thing_id: 'x' } }, {}, { thing_id: 'spoofed', note: 'n' })).toEqual({ thing_id: 'x', note: 'n' });
  });
});

describe('REST route lookup by head', () => {
  const all = [...EXTENSION_ROUTES, ...SPEC_METHODS];
  const everyRoute = all.flatMap((m) => (m.rest ?? []).map((rest) => compileRoute(m, rest)));
  /** What a scan of every route in catalog order answers: the lookup must agree with it. */
  const scan = (verb: string, path: string) => everyRoute.find((r) => r.verb === verb && r.pattern.test(path));
  const sample = (template: string) =>
    template.replace(/\{[^}=]+(?:=([^}]+))?\}/g, (_, pattern?: string) => (pattern ?? '*').replace(/\*\*/g, 'a/b').replace(/\*/g, 'x1'));

  it('finds, for a sample path of every route under every verb, the route a scan of all of them finds', () => {
    const indexed = new RestRouter(all);
    const verbs = [...new Set(everyRoute.map((r) => r.verb))];
    const paths = everyRoute.map((r) => sample(r.template));
    expect(paths.length).toBeGreaterThan(70);
    for (const path of [...paths, '/v1/nothing', '/v2', '/', '/v1/x1:watch', '/v1/notes/x1/y:watch']) {
      for (const verb of verbs) {
        const found = indexed.match(verb, path)?.route;
        expect([verb, path, found && `${found.service}/${found.method}`]).toEqual([verb, path, scan(verb, path) && `${scan(verb, path)!.service}/${scan(verb, path)!.method}`]);
      }
      expect([path, indexed.hasPath(path)]).toEqual([path, everyRoute.some((r) => r.pattern.test(path))]);
    }
  });
});
