import { chatSignature, checkChatSignature } from './signature';

describe('chat request signatures', () => {
  const nowMs = 1_700_000_000_000;
  const timestamp = String(nowMs / 1000);
  const body = '{"type":"event_callback"}';
  const signature = chatSignature('secret', timestamp, body);
  const check = (over: Partial<Parameters<typeof checkChatSignature>[0]>) => checkChatSignature({ signingSecret: 'secret', timestamp, signature, body, nowMs, ...over });

  it('is Slack v0: hex HMAC-SHA256 of v0:{timestamp}:{body}', () => {
    // Slack's documented example: https://api.slack.com/authentication/verifying-requests-from-slack
    const example = 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    expect(chatSignature('8f742231b10e8888abcd99yyyzzz85a5', '1531420618', example)).toBe('v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503');
  });

  it('accepts a matching signature within the skew and refuses the rest', () => {
    expect(check({})).toBe('ok');
    expect(check({ nowMs: nowMs + 299_000 })).toBe('ok');
    expect(check({ nowMs: nowMs + 301_000 })).toBe('stale');
    expect(check({ nowMs: nowMs - 301_000 })).toBe('stale');
    expect(check({ timestamp: 'soon' })).toBe('stale');
    expect(check({ signature: undefined })).toBe('missing');
    expect(check({ timestamp: undefined })).toBe('missing');
    expect(check({ signingSecret: 'other' })).toBe('mismatch');
    expect(check({ body: `${body} ` })).toBe('mismatch');
    expect(check({ signature: 'v0=short' })).toBe('mismatch');
  });
});
