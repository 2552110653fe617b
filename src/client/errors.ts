/** What the client throws. The CLI turns these into exit codes in one place (`exitCodeOf` in src/cli/errors.ts). */

export interface ProblemJson {
  type?: string;
  title?: string;
  status?: number;
  code?: string;
  detail?: string;
  resolution?: string;
  instance?: string;
  request_id?: string;
  errors?: Record<string, string[]>;
}

/**
 * - `usage`: the call itself is wrong (an unknown operation, a missing path parameter);
 * - `unreachable`: no answer (connection refused, timeout, DNS);
 * - `missing`: the server lacks the operation (an extension it does not have);
 * - `protocol`: an answer the client cannot use (a redirect, a cursor that repeats, not JSON);
 * - `api`: a problem+json answer (ApiError).
 */
export type ClientErrorKind = 'usage' | 'unreachable' | 'missing' | 'protocol' | 'api';

export class ClientError extends Error {
  constructor(
    message: string,
    readonly kind: ClientErrorKind,
    /** What the user can do about it. */
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** A problem+json answer from a server. */
export class ApiError extends ClientError {
  constructor(
    readonly status: number,
    readonly problem: ProblemJson,
    /** How many requests were sent (more than 1 after retries), the last `Retry-After`, the answer's headers (`wcm api -i`). */
    readonly info: { attempts?: number; retryAfter?: string; headers?: Record<string, string> } = {},
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`, 'api');
  }
}
