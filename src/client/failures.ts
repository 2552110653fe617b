import type { Route } from '../contract/table.js';
import { ApiError, ClientError, type ProblemJson } from './errors.js';

/** How the client words what went wrong: a server it cannot reach, a failed answer, a missing extension. */

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * One sentence for a server that cannot be reached (issue 37: not "ECONNREFUSED connect
 * ECONNREFUSED"), and a hint that does not send the user to a command that fails the same way.
 */
export function unreachable(url: URL, code: string | undefined, raw: string, attempts: number): ClientError {
  const tries = attempts > 1 ? ` (tried ${attempts} times)` : '';
  const what: Record<string, string> = {
    ECONNREFUSED: `No server is answering at ${url.origin}${tries}: the connection was refused.`,
    ENOTFOUND: `The host name ${url.hostname} does not resolve${tries}.`,
    EAI_AGAIN: `The host name ${url.hostname} could not be resolved just now${tries}.`,
    ETIMEDOUT: `${url.origin} did not answer in time${tries}.`,
    UND_ERR_CONNECT_TIMEOUT: `${url.origin} did not answer in time${tries}.`,
    ECONNRESET: `${url.origin} closed the connection${tries}.`,
  };
  const hint = LOOPBACK.test(url.hostname)
    ? `Start the local server with \`wcm serve\` (in another terminal), or point at another one with \`--base-url\`.`
    : 'Check that the server is up and the base URL is right: `wcm auth status` shows the saved target; `--base-url` or WCM_BASE_URL change it.';
  return new ClientError((code && what[code]) || `Could not reach ${url.origin}${tries}: ${raw}.`, 'unreachable', hint);
}

/** The problem+json a failed answer stands for, with what the user can do where wcm knows it. */
export function problemOf(
  status: number,
  body: unknown,
  text: string,
  resHeaders: Record<string, string>,
  attempt: number,
): ProblemJson {
  const problem: ProblemJson =
    body && typeof body === 'object' && !Array.isArray(body)
      ? { ...(body as ProblemJson) }
      : {
          title: STATUS_TEXT[status] ?? `HTTP ${status}`,
          status,
          detail: text ? String(text).slice(0, 200) : `The server answered ${status}.`,
        };
  if (!problem.request_id && resHeaders['x-request-id']) problem.request_id = resHeaders['x-request-id'];
  // Redirects are never followed (a token must not travel to another host): say where it pointed.
  if (status >= 300 && status < 400 && !problem.resolution) {
    const to = resHeaders.location ? ` to ${resHeaders.location}` : '';
    problem.detail = `The server answered ${status}, a redirect${to}; wcm does not follow redirects, so no token goes to another address.`;
    problem.resolution =
      'If the API has moved, point the base URL there (`--base-url`, or `wcm auth login --base-url …` for a profile).';
  }
  if ((status === 429 || status === 503) && attempt > 0 && !problem.resolution) {
    problem.resolution = `Still ${status} after ${attempt + 1} attempts; wait a little and try again.`;
  }
  return problem;
}

/**
 * An instance without an extension (a server that only has the seed contract, or an older wcm)
 * answers 404 `route_not_found`: say that plainly, not "Route not found". Exit 5, as for any 404.
 */
export function missingExtension(err: unknown, operationId: string, route: Route): unknown {
  if (!(err instanceof ApiError) || err.status !== 404 || err.problem.code !== 'route_not_found') return err;
  return new ClientError(
    `This server does not have the \`${operationId}\` operation (${route.method} ${route.path}).`,
    'missing',
    "It is an extension of wcm's local server (`wcm serve`); this instance lacks it. Pass the id yourself, or use a server that has it.",
  );
}

export const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};
