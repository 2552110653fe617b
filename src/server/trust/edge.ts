/**
 * The front of request handling (docs/security.md#host-origin-and-cors) as the first two middleware of every request, before
 * routing: the Host allow-list (421 before anything else), then the Origin rule with CORS
 * (preflights answered here, CORS headers added to the answer on its way out).
 */
import type { Call, Middleware } from '../chain.js';
import { header, type RequestInfo } from '../request.js';
import type { AppResponse } from '../response.js';
import type { Trust } from './config.js';
import { corsHeaders, corsMethods, preflight } from './cors.js';
import { hostAllowed, hostNotAllowed, targetHostRefused } from './host.js';
import { originAllowed, originNotAllowed, originRuleApplies } from './origin.js';

/** How a refusal becomes an answer (App.fail), so the steps outside see an answer, not a throw. */
type Fail = (err: unknown, info: RequestInfo) => AppResponse;

/**
 * Refuses a Host that is not allowed. `trust` is read per request: `wcm serve` sets it once listening.
 * An absolute-form target (`GET http://name/v1/me`) names its own host, which replaces `Host`
 * (RFC 9112 §3.2.2): it is the one judged, and a `Host` that says otherwise is refused too.
 */
export function hostCheck(trust: () => Trust, fail: Fail): Middleware<Call> {
  return (x, next) => {
    let host = header(x.info.headers, 'host');
    const target = x.req.url;
    if (!target.startsWith('/') && target !== '*') {
      const authority = targetAuthority(target, host);
      if (authority === null) return Promise.resolve(fail(targetHostRefused(host), x.info));
      if (authority !== undefined) host = authority;
    }
    if (!hostAllowed(trust(), host)) return Promise.resolve(fail(hostNotAllowed(host!), x.info));
    return next(x);
  };
}

/**
 * The host of an absolute-form target; null when it has none or `Host` names another; undefined when
 * the target does not parse (it names no route, and is answered so after the `Host` check).
 */
function targetAuthority(target: string, host: string | undefined): string | null | undefined {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  if (!url.host) return null;
  if (host !== undefined) {
    let named: string;
    try {
      named = new URL(`${url.protocol}//${host}`).host;
    } catch {
      return null;
    }
    if (named !== url.host) return null;
  }
  return url.host;
}

/**
 * Browsers' requests (those with an Origin): refused from an untrusted origin where the rule
 * applies, preflights answered on CORS paths, and CORS headers on the answer for an allowed origin.
 */
export function originRule(trust: () => Trust, fail: Fail): Middleware<Call> {
  // Most requests (CLI, SDKs, curl) have no Origin: they pass without a step of their own.
  return (x, next) => (header(x.info.headers, 'origin') === undefined ? next(x) : browser(x, next));

  async function browser(x: Call, next: (x: Call) => Promise<AppResponse>): Promise<AppResponse> {
    const { info } = x;
    const origin = header(info.headers, 'origin')!;
    const allowed = originAllowed(trust(), origin);
    const methods = corsMethods(info.path);
    // A preflight asks on behalf of a request the rule would refuse: refuse it the same way.
    if (info.method === 'OPTIONS' && methods && header(info.headers, 'access-control-request-method') !== undefined)
      return allowed ? preflight(origin, methods, info.id) : fail(originNotAllowed(origin), info);
    if (!allowed && originRuleApplies(info.method, info.path)) return fail(originNotAllowed(origin), info);
    const res = await next(x);
    if (methods && allowed) Object.assign(res.headers, corsHeaders(origin));
    return res;
  }
}
