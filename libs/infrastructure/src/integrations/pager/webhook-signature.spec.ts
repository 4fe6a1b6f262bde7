import { checkPagerSignature, pagerSignature } from './webhook-signature';

// The shape PagerDuty documents (github.com/PagerDuty/developer-docs, docs/webhooks/04-Signatures.md):
// `v1=<hex HMAC-SHA256 of the raw body>`, comma-separated when several secrets sign.
describe('PagerDuty v3 webhook signatures', () => {
  const body = '{"event":{"id":"01","event_type":"incident.triggered"}}';

  it('accepts the body signed with the secret, among other signatures too', () => {
    expect(pagerSignature('s3cret', body)).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(checkPagerSignature({ secrets: ['s3cret'], header: pagerSignature('s3cret', body), body })).toBe('ok');
    expect(checkPagerSignature({ secrets: ['s3cret'], header: `${pagerSignature('old', body)},${pagerSignature('s3cret', body)}`, body })).toBe('ok');
    expect(checkPagerSignature({ secrets: ['new', 's3cret'], header: pagerSignature('s3cret', body), body })).toBe('ok');
  });

  it('refuses another secret, another body, another version, and no header', () => {
    expect(checkPagerSignature({ secrets: ['s3cret'], header: pagerSignature('other', body), body })).toBe('mismatch');
    expect(checkPagerSignature({ secrets: ['s3cret'], header: pagerSignature('s3cret', body), body: `${body} ` })).toBe('mismatch');
    expect(checkPagerSignature({ secrets: ['s3cret'], header: pagerSignature('s3cret', body).replace('v1=', 'v2='), body })).toBe('missing');
    expect(checkPagerSignature({ secrets: ['s3cret'], header: undefined, body })).toBe('missing');
    expect(checkPagerSignature({ secrets: ['s3cret'], header: 'v1=zz', body })).toBe('missing');
  });

  it('reads a bounded header: past 2048 characters nothing is computed', () => {
    const long = `${'v1=00,'.repeat(400)}${pagerSignature('s3cret', body)}`;
    expect(checkPagerSignature({ secrets: ['s3cret'], header: long, body })).toBe('missing');
  });
});
