import type { FieldErrors } from '../contract/issues.js';
import { resourceWords } from '../contract/route.js';

interface ProblemKind {
  status: number;
  title: string;
  resolution: string;
}

/** Every error code the server gives, with its status and what the caller should do. */
export const PROBLEM_KINDS = {
  bad_request: { status: 400, title: 'Bad request', resolution: 'Send a well-formed HTTP/1.1 request.' },
  store_unavailable: {
    status: 503,
    title: 'Store unavailable',
    resolution: 'The database behind this server is unreachable; retry after the number of seconds in `Retry-After`.',
  },
  invalid_json: { status: 400, title: 'Invalid JSON', resolution: 'Send a well-formed JSON body.' },
  invalid_cursor: {
    status: 400,
    title: 'Invalid cursor',
    resolution: 'Pass `cursor` exactly as returned in `meta.next_cursor`, or omit it to start from the first page.',
  },
  idempotency_key_required: {
    status: 400,
    title: 'Idempotency key required',
    resolution: 'Send an `Idempotency-Key` header of 8 to 120 visible ASCII characters, stable across retries.',
  },
  invalid_idempotency_key: {
    status: 400,
    title: 'Invalid idempotency key',
    resolution: 'Use 8 to 120 visible ASCII characters (for example a UUID).',
  },
  invalid_signature: {
    status: 400,
    title: 'Invalid signature',
    resolution: 'Sign the raw body with the webhook signing secret; the timestamp must be within 300 seconds.',
  },
  unauthenticated: {
    status: 401,
    title: 'Authentication required',
    resolution: 'Send `Authorization: Bearer <token>` (for the CLI: `wcm auth login`).',
  },
  invalid_token: {
    status: 401,
    title: 'Invalid token',
    resolution: 'The token is unknown, revoked, expired or for another audience: log in again with a valid token.',
  },
  insufficient_ability: {
    status: 403,
    title: 'Insufficient ability',
    resolution: 'Use a token that has the ability named in `detail`.',
  },
  origin_not_allowed: {
    status: 403,
    title: 'Origin not allowed',
    resolution:
      "Send the request from the server's own pages, a loopback origin, or an origin the server trusts (`wcm serve --allowed-origin ORIGIN`); CLI and SDK requests send no Origin.",
  },
  personal_token_required: {
    status: 403,
    title: 'Personal access token required',
    resolution:
      'Manage OAuth grants and applications with a personal access token (`wcm_pat_…`) or in the dashboard, not with an OAuth token.',
  },
  owner_required: {
    status: 403,
    title: 'Owner role required',
    resolution: 'Ask an owner of the workspace: only owners may delete an OAuth application another member registered.',
  },
  not_a_member: {
    status: 403,
    title: 'Not a member of this workspace',
    resolution: "Use a workspace the token's user belongs to (`wcm auth status` lists them).",
  },
  route_not_found: {
    status: 404,
    title: 'Route not found',
    resolution: 'Check the path against GET /v1/openapi.json.',
  },
  not_found: { status: 404, title: 'Not found', resolution: 'Check the identifier.' },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    resolution: 'Use one of the methods in the `Allow` header.',
  },
  request_timeout: { status: 408, title: 'Request timeout', resolution: 'Send the headers and body promptly.' },
  host_not_allowed: {
    status: 421,
    title: 'Host not allowed',
    resolution:
      "Use the server's address, or start it with `wcm serve --allowed-host NAME` (or `--public-url URL`) for the name clients use.",
  },
  idempotency_key_in_use: {
    status: 409,
    title: 'Idempotency key in use',
    resolution: 'A request with this key is still being processed: retry after it completes.',
  },
  payload_too_large: { status: 413, title: 'Payload too large', resolution: 'Send a body of at most 1 MiB.' },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    resolution: 'Send the body with `Content-Type: application/json`.',
  },
  validation_failed: {
    status: 422,
    title: 'Validation failed',
    resolution: 'Fix the fields listed in `errors` and retry.',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency key reused',
    resolution: 'Use a new `Idempotency-Key` for a different request body.',
  },
  amount_below_minimum: {
    status: 422,
    title: 'Amount below minimum',
    resolution: 'Raise the amount or quantity so the total reaches the currency minimum.',
  },
  headers_too_large: {
    status: 431,
    title: 'Request headers too large',
    resolution: 'Send smaller headers (at most 16 KiB in all).',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    resolution: 'Wait for the number of seconds in `Retry-After`, then retry.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    resolution: 'Retry later; if it persists, report the request id.',
  },
  not_implemented: {
    status: 501,
    title: 'Not implemented',
    resolution: 'This operation is in the contract but not built in this server yet.',
  },
  payment_provider_error: {
    status: 502,
    title: 'Payment provider error',
    resolution: 'The payment processor refused or failed: retry with the same Idempotency-Key.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    resolution: 'The server is shutting down or overloaded: retry shortly.',
  },
} satisfies Record<string, ProblemKind>;

export type ProblemCode = keyof typeof PROBLEM_KINDS;

export interface ProblemOptions {
  detail?: string;
  errors?: FieldErrors;
  resolution?: string;
  headers?: Record<string, string>;
  title?: string;
}

/** A typed error a handler throws; the dispatcher turns it into problem+json. */
export class ProblemError extends Error {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly resolution: string;
  readonly errors: FieldErrors;
  readonly headers: Record<string, string>;

  constructor(code: ProblemCode | `${string}_not_found`, options: ProblemOptions = {}) {
    const kind: ProblemKind = (PROBLEM_KINDS as Record<string, ProblemKind>)[code] ?? {
      status: 404,
      title: `${humanize(code.replace(/_not_found$/, ''))} not found`,
      resolution: 'Check the identifier; it may belong to another workspace or have been removed.',
    };
    super(options.detail ?? kind.title);
    this.code = code;
    this.status = kind.status;
    this.title = options.title ?? kind.title;
    this.resolution = options.resolution ?? kind.resolution;
    this.errors = options.errors ?? {};
    this.headers = options.headers ?? {};
  }
}

function humanize(s: string): string {
  const words = resourceWords(s);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `404 <resource>_not_found` for a path id that names nothing visible to the caller. */
export function notFound(code: `${string}_not_found`, id: string): ProblemError {
  const what = resourceWords(code.replace(/_not_found$/, ''));
  return new ProblemError(code, { detail: `No ${what} with id \`${id}\`.` });
}

/** 422 with one or more field errors. */
export function validationFailed(errors: FieldErrors, detail?: string): ProblemError {
  const fields = Object.keys(errors);
  return new ProblemError('validation_failed', {
    detail:
      detail ??
      `${fields.length} field${fields.length === 1 ? '' : 's'} failed validation: ${fields.map((f) => `\`${f}\``).join(', ')}.`,
    errors,
  });
}

export const PROBLEM_TYPE_BASE = 'urn:wcm:problem:';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  resolution: string;
  instance: string;
  request_id: string;
  errors: FieldErrors;
}

export function problemBody(p: ProblemError, instance: string, requestId: string): ProblemBody {
  return {
    type: `${PROBLEM_TYPE_BASE}${p.code}`,
    title: p.title,
    status: p.status,
    code: p.code,
    detail: p.message,
    resolution: p.resolution,
    instance,
    request_id: requestId,
    errors: p.errors,
  };
}
