/** Exit codes (CLI.md). Scripts depend on these numbers. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  validation: 3,
  auth: 4,
  notFound: 5,
  rateLimited: 6,
} as const;

/** A failure the user can act on: printed without a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** A short machine-readable code for a CLI-side error, used in `--json` error objects. */
export function codeForExit(exitCode: number): string {
  switch (exitCode) {
    case EXIT.usage: return 'usage_error';
    case EXIT.validation: return 'validation_failed';
    case EXIT.auth: return 'not_authenticated';
    case EXIT.notFound: return 'not_found';
    case EXIT.rateLimited: return 'rate_limited';
    default: return 'error';
  }
}

/** Wrong or missing input on the command line: exit 2. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.usage, hint);
  }
}

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

/** A problem+json answer from a server. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly problem: ProblemJson,
    /** How many requests were sent (more than 1 after retries) and the last `Retry-After`. */
    readonly info: { attempts?: number; retryAfter?: string } = {},
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`, exitCodeForStatus(status));
  }
}

export function exitCodeForStatus(status: number): number {
  if (status === 422) return EXIT.validation;
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 429) return EXIT.rateLimited;
  return EXIT.failure;
}
