/**
 * The server's own origin and whom it trusts (docs/security.md#host-origin-and-cors): computed once when `wcm serve` starts,
 * then read by every part that builds a URL (OAuth, MCP, dashboard, WWW-Authenticate, cookies).
 * Nothing derived from "the origin" is ever built from a request's Host header.
 */
import { isIP } from 'node:net';
import { ProxyOptionError, trustedProxies, type TrustedProxies } from '../client-address.js';

export interface Trust {
  /** `scheme://host[:port]` that clients use: `--public-url`, else the listening socket's. */
  readonly origin: string;
  /** The origin's hostname, lower case (brackets kept for IPv6). */
  readonly originHost: string;
  /** `--allowed-host` names, lower case; `*` allows every Host, `.example.com` a domain and its subdomains. */
  readonly allowedHosts: readonly string[];
  /** `--allowed-origin` values, as serialized origins. */
  readonly allowedOrigins: ReadonlySet<string>;
  /** `--trust-proxy`: peers whose `X-Forwarded-For` names the client (src/server/client-address.ts). */
  readonly proxies: TrustedProxies;
}

/** A flag value that cannot be used; the message names the flag and how to fix it. */
export class TrustOptionError extends Error {}

export interface TrustOptions {
  publicUrl?: string;
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  /** Proxy addresses or CIDR ranges whose `X-Forwarded-For` is believed, as `--trust-proxy`. */
  trustProxy?: readonly string[];
}

export function makeTrust(
  origin: string,
  options: Pick<TrustOptions, 'allowedHosts' | 'allowedOrigins' | 'trustProxy'> = {},
): Trust {
  return {
    origin,
    originHost: new URL(origin).hostname.toLowerCase(),
    allowedHosts: (options.allowedHosts ?? []).map(parseAllowedHost),
    allowedOrigins: new Set((options.allowedOrigins ?? []).map(parseAllowedOrigin)),
    proxies: trustedProxies(options.trustProxy),
  };
}

/** An App without `wcm serve` (tests in process): http://localhost, only the built-in hosts and origins. */
export const DEFAULT_TRUST: Trust = makeTrust('http://localhost');

/** Throws TrustOptionError for the first flag that cannot be used; returns the public origin, if given. */
export function checkTrustOptions(options: TrustOptions): string | undefined {
  options.allowedHosts?.forEach(parseAllowedHost);
  options.allowedOrigins?.forEach(parseAllowedOrigin);
  try {
    trustedProxies(options.trustProxy);
  } catch (err) {
    throw err instanceof ProxyOptionError ? new TrustOptionError(err.message) : err;
  }
  return options.publicUrl === undefined ? undefined : parsePublicUrl(options.publicUrl);
}

/** `--public-url`: an http(s) origin with nothing after it (a trailing `/` is fine). */
export function parsePublicUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TrustOptionError(
      `\`--public-url\` must be an absolute http(s) URL such as https://sandbox.example.com; received \`${value}\`.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TrustOptionError(`\`--public-url\` must use http or https; received \`${value}\`.`);
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw new TrustOptionError(
      `\`--public-url\` must be an origin only (scheme, host, optional port), with no path, query or credentials; received \`${value}\`.`,
    );
  }
  return url.origin;
}

/** `--allowed-origin`: a serialized origin (`https://app.example.com`, `http://localhost:5173`). */
export function parseAllowedOrigin(value: string): string {
  let url: URL | null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  const bare =
    url &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    !url.username &&
    !url.password &&
    !url.search &&
    !url.hash &&
    url.pathname === '/' &&
    !value.endsWith('/');
  if (!url || !bare) {
    throw new TrustOptionError(
      `\`--allowed-origin\` must be an origin (http(s)://host[:port], no path or trailing slash) such as https://app.example.com; received \`${value}\`.`,
    );
  }
  return url.origin;
}

const HOST_NAME = /^(\*|\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?)$/;

/** `--allowed-host`: a host name (`sandbox.example.com`), `.example.com` for a domain and its subdomains, or `*`. */
export function parseAllowedHost(value: string): string {
  const name = value.trim().toLowerCase();
  if (!HOST_NAME.test(name)) {
    throw new TrustOptionError(
      `\`--allowed-host\` must be a host name without scheme or port (sandbox.example.com, .example.com for subdomains, or * for any); received \`${value}\`.`,
    );
  }
  return name.replace(/(.)\.$/, '$1');
}

const WILDCARD_BINDS = new Set(['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0', '']);

/** Whether `--host` listens on every interface (then it is not loopback, and has no single origin). */
export const isWildcardBind = (host: string): boolean => WILDCARD_BINDS.has(host.trim().toLowerCase());

/**
 * The origin without `--public-url`: `http://{host}:{port}` of the listening socket (`--host` itself
 * when it is a name), where a wildcard bind uses 127.0.0.1 (with a warning: remote clients would be
 * told the wrong origin).
 */
export function socketOrigin(bindHost: string, address: string, port: number): { origin: string; warning?: string } {
  if (isWildcardBind(bindHost) || isWildcardBind(address)) {
    return {
      origin: `http://127.0.0.1:${port}`,
      warning: `warning: listening on every interface (${bindHost}); OAuth metadata, redirects and dashboard links use http://127.0.0.1:${port}, and pages opened at another address cannot post forms. Set --public-url (or WCM_PUBLIC_URL) to the URL other machines use.`,
    };
  }
  // `--host sandbox.lan`: clients use that name, so it is the origin (and its host is allowed).
  const name = bindHost.trim().toLowerCase();
  if (name && isIP(name.replace(/^\[|\]$/g, '')) === 0) return { origin: `http://${name}:${port}` };
  const host = isIP(address) === 6 ? `[${address}]` : address;
  return { origin: `http://${host}:${port}` };
}
