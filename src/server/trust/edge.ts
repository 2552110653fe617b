/**
 * The front of request handling (TRUST.md §1), before any route: the Host allow-list, the
 * Origin rule, and CORS preflights. Small steps, each a function of the request alone, so a
 * middleware chain can take them over as they are.
 */
import type { ProblemError } from '../problems.js';
import type { RequestInfo } from '../request.js';
import { header } from '../request.js';
import type { AppResponse } from '../response.js';
import type { Trust } from './config.js';
import { corsHeaders, corsMethods, preflight } from './cors.js';
import { hostAllowed, hostNotAllowed } from './host.js';
import { originAllowed, originNotAllowed, originRuleApplies } from './origin.js';

/** A refusal (problem), an answer (a preflight), or null to go on routing. */
export function checkEdge(
  trust: Trust,
  info: Pick<RequestInfo, 'id' | 'method' | 'path' | 'headers'>,
): ProblemError | AppResponse | null {
  const host = header(info.headers, 'host');
  if (!hostAllowed(trust, host)) return hostNotAllowed(host!);
  const origin = header(info.headers, 'origin');
  if (origin === undefined) return null;
  const allowed = originAllowed(trust, origin);
  const methods = corsMethods(info.path);
  // A preflight asks on behalf of a request the rule would refuse: refuse it the same way.
  if (info.method === 'OPTIONS' && methods && header(info.headers, 'access-control-request-method') !== undefined) {
    return allowed ? preflight(origin, methods, info.id) : originNotAllowed(origin);
  }
  if (!allowed && originRuleApplies(info.method, info.path)) return originNotAllowed(origin);
  return null;
}

/** CORS headers for the actual response: an allowed origin on a CORS path only. */
export function addCors(trust: Trust, info: Pick<RequestInfo, 'path' | 'headers'>, res: AppResponse): void {
  const origin = header(info.headers, 'origin');
  if (origin === undefined || !corsMethods(info.path) || !originAllowed(trust, origin)) return;
  Object.assign(res.headers, corsHeaders(origin));
}
