/**
 * The front of request handling (TRUST.md §1) as the first two middleware of every request, before
 * routing: the Host allow-list (421 before anything else), then the Origin rule with CORS
 * (preflights answered here, CORS headers added to the answer on its way out).
 */
import type { RequestMiddleware } from '../chain.js';
import { header } from '../request.js';
import type { Trust } from './config.js';
import { corsHeaders, corsMethods, preflight } from './cors.js';
import { hostAllowed, hostNotAllowed } from './host.js';
import { originAllowed, originNotAllowed, originRuleApplies } from './origin.js';

/** Refuses a Host that is not allowed. `trust` is read per request: `wcm serve` sets it once listening. */
export function hostCheck(trust: () => Trust): RequestMiddleware {
  return (x, next) => {
    const host = header(x.info.headers, 'host');
    if (!hostAllowed(trust(), host)) throw hostNotAllowed(host!);
    return next(x);
  };
}

/**
 * Browsers' requests (those with an Origin): refused from an untrusted origin where the rule
 * applies, preflights answered on CORS paths, and CORS headers on the answer for an allowed origin.
 */
export function originRule(trust: () => Trust): RequestMiddleware {
  return async (x, next) => {
    const { info } = x;
    const origin = header(info.headers, 'origin');
    if (origin === undefined) return next(x);
    const allowed = originAllowed(trust(), origin);
    const methods = corsMethods(info.path);
    // A preflight asks on behalf of a request the rule would refuse: refuse it the same way.
    if (info.method === 'OPTIONS' && methods && header(info.headers, 'access-control-request-method') !== undefined) {
      if (!allowed) throw originNotAllowed(origin);
      return preflight(origin, methods, info.id);
    }
    if (!allowed && originRuleApplies(info.method, info.path)) throw originNotAllowed(origin);
    const res = await next(x);
    if (methods && allowed) Object.assign(res.headers, corsHeaders(origin));
    return res;
  };
}
