import { loadSettings } from './env';

const KEY = Buffer.alloc(32, 9).toString('base64');

describe('settings: SVC_ENCRYPTION_KEY at start', () => {
  it('is required with the server stores, naming the variable and how to make one', () => {
    expect(() => loadSettings({ EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false' })).toThrow(
      /SVC_ENCRYPTION_KEY must be set when EVENTSTORE_URL or MONGODB_URL is: 32 random bytes, base64-encoded \(openssl rand -base64 32\)/,
    );
    expect(() => loadSettings({ MONGODB_URL: 'mongodb://mongo:27017/svc?replicaSet=rs0' })).toThrow(/SVC_ENCRYPTION_KEY must be set/);
    expect(loadSettings({ EVENTSTORE_URL: 'esdb://e:2113', MONGODB_URL: 'mongodb://m', SVC_ENCRYPTION_KEY: KEY }).eventStoreUrl).toBe('esdb://e:2113');
  });

  it('is optional in the embedded mode (a key file in the data directory), empty store URLs included', () => {
    expect(loadSettings({}).eventStoreUrl).toBeUndefined();
    expect(() => loadSettings({ EVENTSTORE_URL: '', MONGODB_URL: '' })).not.toThrow();
  });

  it('must be 32 bytes of strict base64 whenever it is set', () => {
    expect(() => loadSettings({ SVC_ENCRYPTION_KEY: Buffer.alloc(16, 1).toString('base64') })).toThrow(/32 random bytes.*decodes to 16 bytes/);
    expect(() => loadSettings({ SVC_ENCRYPTION_KEY: 'not a key!' })).toThrow(/characters base64 does not use/);
    // Node's decoder would skip the '#' and still find 32 bytes: a mangled key is refused, not guessed.
    expect(() => loadSettings({ SVC_ENCRYPTION_KEY: `${KEY.slice(0, 10)}#${KEY.slice(10)}` })).toThrow(/characters base64 does not use/);
    expect(() => loadSettings({ SVC_ENCRYPTION_KEY: Buffer.alloc(32, 2).toString('base64url') })).not.toThrow();
  });
});

describe('settings: sign-in limits and HTTP timeouts', () => {
  it('default to bounds that hold under a flood (issue 16)', () => {
    const settings = loadSettings({});
    expect(settings.authLimits).toEqual({ hashConcurrency: 2, hashQueue: 16, failuresPerKeyPerMinute: 10, failuresPerAddressPerMinute: 30, failedPairCacheMs: 30_000 });
    expect(settings.http).toEqual({ headersTimeoutMs: 10_000, idleTimeoutMs: 120_000, requestTimeoutMs: 0 });
  });

  it('refuse a setting Node would refuse, or one that leaves no slow hash to run', () => {
    expect(() => loadSettings({ SVC_HTTP_REQUEST_TIMEOUT_MS: '5000' })).toThrow(/SVC_HTTP_REQUEST_TIMEOUT_MS must be 0 or at least SVC_HTTP_HEADERS_TIMEOUT_MS \(10000\)/);
    expect(loadSettings({ SVC_HTTP_REQUEST_TIMEOUT_MS: '600000' }).http.requestTimeoutMs).toBe(600_000);
    expect(() => loadSettings({ SVC_AUTH_HASH_CONCURRENCY: '0' })).toThrow(/SVC_AUTH_HASH_CONCURRENCY must be a positive integer/);
    expect(() => loadSettings({ SVC_HTTP_HEADERS_TIMEOUT_MS: '0' })).toThrow(/SVC_HTTP_HEADERS_TIMEOUT_MS must be a positive integer/);
  });
});
