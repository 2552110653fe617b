/**
 * The Origin rule for browsers (docs/security.md#host-origin-and-cors): a web page may not change state here, nor reach the
 * server's own surfaces (MCP, OAuth, control plane, dashboard), unless its origin is trusted.
 * Requests without an Origin header (CLI, SDKs, curl) are not browsers' and pass.
 */
import { ProblemError } from '../problems.js';
import type { Trust } from './config.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const GUARDED_PREFIXES = ['/mcp', '/oauth', '/_emulator', '/dashboard'];

const under = (path: string, prefix: string) =>
  path === prefix || (path.startsWith(prefix) && path[prefix.length] === '/');

/** Whether a request with an Origin header must come from a trusted origin (/.well-known/* is open). */
export function originRuleApplies(method: string, path: string): boolean {
  if (STATE_CHANGING.has(method)) return true;
  for (const p of GUARDED_PREFIXES) if (under(path, p)) return true;
  return false;
}

/** `http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*`: pages served from this machine (the MCP Inspector's). */
const LOOPBACK_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/** The server's own origin, a loopback origin, or `--allowed-origin`. `null` (opaque origins) never. */
export function originAllowed(trust: Trust, origin: string): boolean {
  const o = origin.toLowerCase();
  return o === trust.origin || LOOPBACK_ORIGIN.test(o) || trust.allowedOrigins.has(o);
}

export function originNotAllowed(origin: string): ProblemError {
  const shown = origin.length > 200 ? `${origin.slice(0, 200)}…` : origin;
  return new ProblemError('origin_not_allowed', {
    detail:
      origin === 'null'
        ? 'Requests from an opaque origin (`Origin: null`: a sandboxed frame, a file, a redirect) are refused.'
        : `Requests from the web origin \`${shown}\` are refused. To trust it, start the server with \`wcm serve --allowed-origin ${shown}\`.`,
  });
}
