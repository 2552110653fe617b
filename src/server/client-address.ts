/**
 * Who a request comes from, for rate limits and idempotency scopes (docs/security.md: client
 * addresses). The TCP peer, unless it is a proxy named with `wcm serve --trust-proxy`: then the
 * rightmost address in `X-Forwarded-For` that is not a trusted proxy. A caller can put anything at the
 * left of that header, but not past the hop the proxy itself appended.
 */
import { BlockList, isIP } from 'node:net';

/** The proxies `--trust-proxy` names: addresses and CIDR ranges, IPv4 and IPv6. */
export interface TrustedProxies {
  readonly list: BlockList;
  /** Whether any was given: without one, `X-Forwarded-For` is never read. */
  readonly any: boolean;
}

export const NO_PROXIES: TrustedProxies = { list: new BlockList(), any: false };

/** Thrown for a `--trust-proxy` value that is neither an address nor a CIDR range. */
export class ProxyOptionError extends Error {}

/** Parses `--trust-proxy` values (`10.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`). */
export function trustedProxies(values: readonly string[] | undefined): TrustedProxies {
  if (!values?.length) return NO_PROXIES;
  const list = new BlockList();
  for (const raw of values) {
    const value = raw.trim();
    const slash = value.indexOf('/');
    const address = unmapped(slash === -1 ? value : value.slice(0, slash));
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const after = slash === -1 ? String(bits) : value.slice(slash + 1);
    const prefix = /^\d{1,3}$/.test(after) ? Number(after) : NaN;
    if (!family || !(prefix <= bits))
      throw new ProxyOptionError(
        `\`--trust-proxy\` must be an IP address or a CIDR range (127.0.0.1, 10.0.0.0/8, fd00::/8); received \`${raw}\`.`,
      );
    list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return { list, any: true };
}

/** `::ffff:192.0.2.1` (an IPv4 client on a dual-stack socket) as the IPv4 address it is. */
function unmapped(address: string): string {
  return address.length > 7 && address.slice(0, 7).toLowerCase() === '::ffff:' && isIP(address.slice(7)) === 4
    ? address.slice(7)
    : address;
}

function trusted(proxies: TrustedProxies, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && proxies.list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** An `X-Forwarded-For` hop as an address: brackets and a zone dropped, or null when it is not one. */
function hopAddress(hop: string): string | null {
  let a = hop.trim();
  if (a.startsWith('[')) a = a.slice(1, a.indexOf(']') === -1 ? a.length : a.indexOf(']'));
  a = unmapped(a);
  return isIP(a) ? a : null;
}

/**
 * The client's address: the peer, IPv4-mapped addresses as IPv4; behind a trusted proxy, the
 * rightmost `X-Forwarded-For` hop that is not itself a trusted proxy (a hop that is no address stops
 * the walk at the last proxy).
 */
export function clientAddress(proxies: TrustedProxies, peer: string, forwarded: string | string[] | undefined): string {
  let address = unmapped(peer);
  if (!proxies.any || forwarded === undefined || !trusted(proxies, address)) return address;
  const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded).split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hopAddress(hops[i]);
    if (hop === null) break;
    address = hop;
    if (!trusted(proxies, hop)) break;
  }
  return address;
}

/**
 * The key one client's limits and scopes share: an IPv4 address, or an IPv6 address's /64, which
 * a single host or network holds whole (SLAAC, privacy addresses) and can rotate through at will.
 */
export function clientKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const zone = address.indexOf('%');
  const a = (zone === -1 ? address : address.slice(0, zone)).toLowerCase();
  const gap = a.indexOf('::');
  const head = (gap === -1 ? a : a.slice(0, gap)).split(':').filter(Boolean);
  const tail =
    gap === -1
      ? []
      : a
          .slice(gap + 2)
          .split(':')
          .filter(Boolean);
  // A dotted IPv4 tail stands for two groups.
  const groups = (g: string[]) => g.reduce((n, x) => n + (x.includes('.') ? 2 : 1), 0);
  const all = [...head, ...Array<string>(Math.max(0, 8 - groups(head) - groups(tail))).fill('0'), ...tail];
  const prefix = all.slice(0, 4).map((g) => (g.includes('.') ? '0' : parseInt(g, 16).toString(16)));
  return `${prefix.join(':')}::/64`;
}
