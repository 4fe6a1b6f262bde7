/**
 * The HTTP tool's guard against reaching private networks (SSRF): a host is resolved once, every
 * address it resolves to must be public unicast, and the request is then pinned to the vetted address
 * (http.adapter.ts), so a DNS answer that changes between the check and the connect (rebinding) is
 * never used. Classification is ipaddr.js's table of special ranges; everything not `unicast` is refused.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import * as ipaddr from 'ipaddr.js';
import { ToolError } from '../tool-adapter.port';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a hostname resolves to (the system resolver, as a connect would use it). */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: HostLookup = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** 64:ff9b::/96, NAT64's well-known prefix: the last 32 bits are the IPv4 address reached. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * Why an address is not one tools may reach (the range's name: `loopback`, `private`, `linkLocal`,
 * `uniqueLocal`, `carrierGradeNat`, `unspecified`, `multicast`, `reserved`, ...), or undefined for a
 * public unicast address. IPv4 written inside IPv6 (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`,
 * NAT64) is judged as the IPv4 address it reaches.
 */
export function forbiddenRange(address: string): string | undefined {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(text) === 0) return 'not an IP address';
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const parts = v6.parts;
    const embedded = (prefix: string) => {
      const v4 = new ipaddr.IPv4([parts[6] >> 8, parts[6] & 0xff, parts[7] >> 8, parts[7] & 0xff]);
      const range = v4.range();
      return range === 'unicast' ? undefined : `${prefix} ${range}`;
    };
    if (v6.isIPv4MappedAddress()) return embedded('IPv4-mapped');
    if (v6.match(NAT64)) return embedded('NAT64');
    // ::/96 holds `::`, `::1` and the deprecated IPv4-compatible form `::a.b.c.d`: none is a public host.
    if (parts.slice(0, 6).every((p) => p === 0)) return v6.range() === 'unicast' ? 'IPv4-compatible' : v6.range();
  }
  const range = parsed.range();
  return range === 'unicast' ? undefined : range;
}

/**
 * The address a request to `hostname` connects to: an IP literal as written, a name resolved once.
 * Unless `allowPrivate`, every address must be public (one private answer refuses the host: a name
 * that mixes them is exactly what a rebinding attack serves). Refusals are PERMISSION_DENIED and come
 * before any connection is made.
 */
export async function vetHost(hostname: string, allowPrivate: boolean, lookup: HostLookup, connectionName: string): Promise<ResolvedAddress> {
  const literal = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  let addresses: ResolvedAddress[];
  if (isIP(literal) !== 0) addresses = [{ address: literal, family: isIP(literal) }];
  else {
    try {
      addresses = await lookup(literal);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new ToolError('UNAVAILABLE', `${connectionName}: host '${hostname}' cannot be resolved${typeof code === 'string' ? ` (${code})` : ''}`);
    }
    if (addresses.length === 0) throw new ToolError('UNAVAILABLE', `${connectionName}: host '${hostname}' resolves to no address`);
  }
  if (!allowPrivate) {
    for (const { address } of addresses) {
      const range = forbiddenRange(address);
      if (range !== undefined) {
        throw new ToolError(
          'PERMISSION_DENIED',
          `${connectionName}: host '${hostname}' is ${address === literal ? '' : `resolved to ${address}, `}${/^[aeiou]/i.test(range) ? 'an' : 'a'} ${range} address, which tools may not reach ` +
            "(an operator may allow the connection's own host with allow_private_host)",
        );
      }
    }
  }
  return addresses[0];
}
