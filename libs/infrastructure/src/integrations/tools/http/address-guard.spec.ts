import { ToolError } from '../tool-adapter.port';
import { forbiddenRange, HostLookup, vetHost } from './address-guard';

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback'],
    ['::ffff:169.254.169.254', 'IPv4-mapped linkLocal'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::7f00:1', 'IPv4-compatible'],
    ['64:ff9b::10.0.0.1', 'NAT64 private'],
    ['[::1]', 'loopback'],
  ])('given %s, when classified, then it is refused as %s', (address, range) => {
    expect(forbiddenRange(address)).toBe(range);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8'])('given the public address %s, when classified, then it is allowed', (address) => {
    expect(forbiddenRange(address)).toBeUndefined();
  });

  it('given IPv4-compatible text (which ipaddr.js reads as mapped), when classified, then it is refused either way', () => {
    expect(forbiddenRange('::127.0.0.1')).toMatch(/loopback|IPv4-compatible/);
    expect(forbiddenRange(new URL('http://[::127.0.0.1]/').hostname)).toBe('IPv4-compatible');
  });

  it('given something that is not an address, when classified, then it is refused', () => {
    expect(forbiddenRange('localhost')).toBe('not an IP address');
  });
});

describe('vetting a host', () => {
  const answers = (map: Record<string, string[]>): HostLookup & { asked: string[] } => {
    const asked: string[] = [];
    const lookup = async (hostname: string) => {
      asked.push(hostname);
      const addresses = map[hostname];
      if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    return Object.assign(lookup, { asked });
  };

  async function refusal(promise: Promise<unknown>): Promise<ToolError> {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    if (!(error instanceof ToolError)) throw new Error(`expected a ToolError, got ${String(error)}`);
    return error;
  }

  it('given a public name, when vetted, then its first address is the one to connect to', async () => {
    const lookup = answers({ 'api.example.com': ['93.184.216.34', '2606:2800:220:1::1'] });
    expect(await vetHost('api.example.com', false, lookup, 'connections/partner')).toEqual({ address: '93.184.216.34', family: 4 });
  });

  it('given a name with one private address among public ones (a rebinding setup), when vetted, then it is PERMISSION_DENIED naming the address', async () => {
    const lookup = answers({ 'rebind.example.com': ['93.184.216.34', '169.254.169.254'] });
    const error = await refusal(vetHost('rebind.example.com', false, lookup, 'connections/partner'));
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.message).toMatch(/connections\/partner: host 'rebind.example.com' is resolved to 169.254.169.254, a linkLocal address/);
  });

  it('given an IP literal, when vetted, then no name is resolved', async () => {
    const lookup = answers({});
    expect((await refusal(vetHost('[::1]', false, lookup, 'connections/x'))).message).toMatch(/host '\[::1\]' is a loopback address/);
    expect(await vetHost('8.8.8.8', false, lookup, 'connections/x')).toEqual({ address: '8.8.8.8', family: 4 });
    expect(lookup.asked).toEqual([]);
  });

  it('given a connection that allows its private host, when vetted, then the private address is used', async () => {
    const lookup = answers({ 'intranet.local': ['10.0.0.7'] });
    expect(await vetHost('intranet.local', true, lookup, 'connections/x')).toEqual({ address: '10.0.0.7', family: 4 });
  });

  it('given a name that does not resolve, when vetted, then it is UNAVAILABLE', async () => {
    const error = await refusal(vetHost('nowhere.invalid', false, answers({}), 'connections/x'));
    expect([error.code, error.message]).toEqual(['UNAVAILABLE', "connections/x: host 'nowhere.invalid' cannot be resolved (ENOTFOUND)"]);
  });
});
