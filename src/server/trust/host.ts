/**
 * The Host allow-list (docs/security.md#host-origin-and-cors): what defeats DNS rebinding. A rebinding page can make the
 * browser connect to 127.0.0.1, but its requests still carry the attacker's name as Host.
 */
import { isIP } from 'node:net';
import { ProblemError } from '../problems.js';
import type { Trust } from './config.js';

/** `name[:port]` or `[v6][:port]`; anything else (quotes, commas, spaces) is no host at all. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::\d{1,5})?$/;

/** The Host header's name, lower case without the port or a trailing dot; null when it is not a host. */
export function hostnameOf(host: string): string | null {
  const m = HOST_HEADER.exec(host.toLowerCase());
  if (!m) return null;
  return m[1].length > 1 ? m[1].replace(/\.$/, '') : m[1];
}

function isIpLiteral(name: string): boolean {
  return name.startsWith('[') ? isIP(name.slice(1, -1)) === 6 : isIP(name) === 4;
}

function listed(name: string, allowed: readonly string[]): boolean {
  for (const a of allowed) {
    if (a === '*' || a === name) return true;
    if (a.startsWith('.') && (name === a.slice(1) || name.endsWith(a))) return true;
  }
  return false;
}

/**
 * Verdicts by Host header value, per Trust: clients send the same few values over and over, and a
 * lookup is cheaper than parsing one per request. Bounded, so a client cycling names cannot grow it.
 */
const verdicts = new WeakMap<Trust, Map<string, boolean>>();
const VERDICTS_KEPT = 256;

/**
 * Allowed: no Host at all (not a browser), the origin's host, an IP literal, `localhost` and
 * `*.localhost`, and `--allowed-host` names.
 */
export function hostAllowed(trust: Trust, host: string | undefined): boolean {
  if (host === undefined) return true;
  let known = verdicts.get(trust);
  if (!known) verdicts.set(trust, (known = new Map()));
  let verdict = known.get(host);
  if (verdict === undefined) {
    verdict = judge(trust, host);
    if (known.size >= VERDICTS_KEPT) known.clear();
    known.set(host, verdict);
  }
  return verdict;
}

function judge(trust: Trust, host: string): boolean {
  const name = hostnameOf(host);
  if (name === null) return false;
  return (
    name === trust.originHost ||
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    isIpLiteral(name) ||
    listed(name, trust.allowedHosts)
  );
}

export function hostNotAllowed(host: string): ProblemError {
  const name = hostnameOf(host);
  return new ProblemError('host_not_allowed', {
    detail: name
      ? `This server does not answer to the host \`${name}\`. If that is the name clients use, start it with \`wcm serve --allowed-host ${name}\` (or --public-url with that name).`
      : 'The Host header is not a valid host name.',
  });
}

/** An absolute-form target without a host, or whose host is not the one `Host` names (RFC 9112 §3.2.2). */
export function targetHostRefused(host: string | undefined): ProblemError {
  return new ProblemError('host_not_allowed', {
    detail:
      host === undefined
        ? 'The request target names no host.'
        : `The request target names another host than the \`Host\` header (\`${hostnameOf(host) ?? 'not a host'}\`); send the path alone (origin-form), or the same host in both.`,
  });
}
