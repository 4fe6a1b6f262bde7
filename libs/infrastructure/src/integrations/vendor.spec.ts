import { DomainError } from '@svc/domain/shared/domain-error';
import { baseUrl, Details, scrub, VendorError, vendorFailure, vendorStatusError } from './vendor';

describe('vendor failures', () => {
  it("map a vendor's status onto the port's codes", () => {
    const code = (status: number) => vendorStatusError('V (connections/x)', status, '', []).code;
    expect([400, 401, 403, 404, 409, 410, 422, 429, 500, 502].map(code)).toEqual([
      'INVALID_ARGUMENT',
      'PERMISSION_DENIED',
      'PERMISSION_DENIED',
      'NOT_FOUND',
      'ALREADY_EXISTS',
      'FAILED_PRECONDITION',
      'INVALID_ARGUMENT',
      'UNAVAILABLE',
      'UNAVAILABLE',
      'UNAVAILABLE',
    ]);
  });

  it("carry the vendor's words clipped and without the connection's secrets", () => {
    const error = vendorStatusError('V', 400, `bad routing key s3cr3t-key in ${'x'.repeat(1000)}`, ['s3cr3t-key']);
    expect(error.message).not.toContain('s3cr3t-key');
    expect(error.message).toContain('[redacted]');
    expect(error.message.length).toBeLessThan(400);
    expect(scrub('  a\n b  ', [])).toBe('a b');
  });

  it('answer refused credentials as the connection’s precondition at the API, and leave other errors alone', () => {
    expect(vendorFailure(new VendorError('PERMISSION_DENIED', 'no'), 'IDP')).toMatchObject({ code: 'FAILED_PRECONDITION', reason: 'IDP_ACCESS_REFUSED' });
    expect(vendorFailure(new VendorError('UNAVAILABLE', 'later'), 'IDP')).toEqual(new DomainError('UNAVAILABLE', 'later'));
    const other = new Error('x');
    expect(vendorFailure(other, 'IDP')).toBe(other);
  });
});

describe('connection details', () => {
  it('read a field in either spelling and name a missing one without a value', () => {
    const details = Details.of({ name: 'connections/pd', connectionDetails: { pager: { routing_key: 'k', apiUrl: 'http://x' } } }, 'pager');
    expect(details.optional('routing_key')).toBe('k');
    expect(details.optional('api_url')).toBe('http://x');
    expect(() => details.required('token', 'pager')).toThrow(/connections\/pd has no details\.pager\.token/);
    expect(Details.of({ name: 'c', connectionDetails: undefined }, 'pager').optional('x')).toBeUndefined();
  });

  it('take http(s) base URLs only', () => {
    expect(baseUrl('https://events.eu.pagerduty.com/', 'c', 'api_url')).toBe('https://events.eu.pagerduty.com');
    expect(() => baseUrl('file:///etc/passwd', 'c', 'api_url')).toThrow(/http\(s\)/);
    expect(() => baseUrl('not a url', 'c', 'api_url')).toThrow(/not a URL/);
  });
});
