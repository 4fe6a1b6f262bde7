import { IsObject, IsString } from 'class-validator';
import { MethodRegistry, deprecationHeaders, parseRequest, type MethodDefinition } from './method-registry';

class Empty {}
const definition = (service: string, headers?: Record<string, string>): MethodDefinition<object> => ({
  service,
  method: 'GetThing',
  request: Empty,
  headers,
  handle: () => Promise.resolve({}),
});

describe('method registry: response headers', () => {
  it('formats RFC 9745 Deprecation (Unix seconds) and a successor-version Link', () => {
    expect(deprecationHeaders('2025-01-01T00:00:00Z', { service: 'svc.things.v2.ThingsService', method: 'GetThing' })).toEqual({
      Deprecation: '@1735689600',
      Link: '</svc.things.v2.ThingsService/GetThing>; rel="successor-version"',
    });
    expect(() => deprecationHeaders('soon', { service: 's', method: 'm' })).toThrow(/RFC 3339/);
  });

  it("answers a method's declared headers, and none for other or unknown methods", () => {
    const registry = new MethodRegistry();
    registry.register(definition('svc.things.v1.ThingsService', { Deprecation: '@1' }), definition('svc.things.v2.ThingsService'));
    expect(registry.headersOf('svc.things.v1.ThingsService', 'GetThing')).toEqual({ Deprecation: '@1' });
    expect(registry.headersOf('svc.things.v2.ThingsService', 'GetThing')).toEqual({});
    expect(registry.headersOf('svc.things.v9.ThingsService', 'GetThing')).toEqual({});
  });
});

describe('method registry: request validation messages', () => {
  class KnownIssueRequest {
    @IsObject({ message: 'known_issue is required and must be an object' }) knownIssue?: object;
    @IsString() knownIssueId?: string;
  }

  it('names each field once, in snake_case, whichever spelling the message starts with', async () => {
    await expect(parseRequest({ request: KnownIssueRequest }, { known_issue_id: 7 })).rejects.toMatchObject({
      message: 'known_issue is required and must be an object; known_issue_id must be a string',
    });
  });
});
