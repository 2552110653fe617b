import type { Call, Middleware } from './chain.js';
import type { RequestInfo } from './request.js';

/**
 * Reports the unexpected error behind a 500 (`App.fail` keeps it on the answer as `error`) as the
 * answer goes out: `wcm serve` logs it; the client only ever sees `internal_error`.
 */
export function errorLog(report: (err: unknown, info: RequestInfo) => void): Middleware<Call> {
  return async (x, next) => {
    const res = await next(x);
    if (res.error !== undefined) report(res.error, x.info);
    return res;
  };
}
