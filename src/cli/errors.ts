import type { ApiError, ClientError } from '../client/errors.js';

/** Exit codes (docs/cli.md: Output, errors and exit codes). Scripts depend on these numbers. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  validation: 3,
  auth: 4,
  notFound: 5,
  rateLimited: 6,
  /** Ctrl-C in a prompt: 128 + SIGINT, as a shell reports an interrupted command. */
  interrupted: 130,
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
    case EXIT.usage:
      return 'usage_error';
    case EXIT.validation:
      return 'validation_failed';
    case EXIT.auth:
      return 'not_authenticated';
    case EXIT.notFound:
      return 'not_found';
    case EXIT.rateLimited:
      return 'rate_limited';
    default:
      return 'error';
  }
}

/** Wrong or missing input on the command line: exit 2. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.usage, hint);
  }
}

const CLIENT_KINDS = new Set(['usage', 'unreachable', 'missing', 'protocol', 'api']);
/** A client error, told by its shape rather than `instanceof` so that `wcm --help` does not load the client. */
function clientError(err: unknown): ClientError | undefined {
  return err instanceof Error && CLIENT_KINDS.has((err as ClientError).kind) ? (err as ClientError) : undefined;
}

/** A failure the user can act on (one the CLI or the client reported): printed without a stack trace. */
export function isReported(err: unknown): err is CliError | ClientError {
  return err instanceof CliError || !!clientError(err);
}

/** The exit code for any error: the one place a client error becomes a number scripts read. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  const c = clientError(err);
  if (!c) return EXIT.failure;
  if (c.kind === 'api') return exitCodeForStatus((c as ApiError).status);
  return c.kind === 'usage' ? EXIT.usage : c.kind === 'missing' ? EXIT.notFound : EXIT.failure;
}

/** The server's problem answer inside an error, if it is one (an ApiError). */
export function apiErrorOf(err: unknown): ApiError | undefined {
  const c = clientError(err);
  return c?.kind === 'api' ? (c as ApiError) : undefined;
}

/** What the user can do about it, when the error says. */
export function hintOf(err: unknown): string | undefined {
  return err instanceof CliError ? err.hint : clientError(err)?.hint;
}

export function exitCodeForStatus(status: number): number {
  if (status === 422) return EXIT.validation;
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 429) return EXIT.rateLimited;
  return EXIT.failure;
}
