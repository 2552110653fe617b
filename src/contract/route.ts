import type { z } from 'zod';
import type { Ability } from './enums.js';

/**
 * What an operation is, in two halves. Its route: everything the router, the client, the CLI's help
 * and the OpenAPI document say about it other than the shape of its data, zod-free, so `wcm lists ls`
 * finds its URL without compiling every schema. Its schemas: the shape of its data. Each area's
 * folder writes both halves of its operations (`src/api/<area>/routes.ts`, `schemas.ts`) beside their
 * handlers; `table.ts` and `operations.ts` join the areas that `src/api/areas.ts` names.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * How a request is let in:
 * - `bearer`: a token with `ability` whose user is a member of the path's workspace (if any);
 * - `token`: any valid token (no ability, no workspace);
 * - `public`: no token; rate-limited, and `Idempotency-Key` required where `idempotent`;
 * - `signature`: no token; the handler verifies a signature over the raw body.
 */
export type Access = 'bearer' | 'token' | 'public' | 'signature';

export interface Route {
  method: HttpMethod;
  /** Relative to the base address (`/v1` or `/api/v1`), with `{param}` placeholders. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  ability?: Ability;
  status: 200 | 201;
  /** The response is a page of items (`data` is an array, `next_cursor` beside it). */
  list?: boolean;
  /** Public POSTs that need `Idempotency-Key`. */
  idempotent?: boolean;
  /** Whether a request may omit the body (every member optional). */
  bodyOptional?: boolean;
  /** Not in the seed contract: marked `x-extension: true` in the OpenAPI document; an instance without it answers 404 `route_not_found`. */
  extension?: boolean;
  /**
   * Only with a personal access token (or a dashboard session): an OAuth token gets 403
   * `personal_token_required`, and the operation is not an MCP tool (docs/security.md#oauth).
   */
  personal?: boolean;
  /** The operation this one is a compatibility alias of. */
  aliasOf?: string;
  /** 404 code for each path parameter that names a resource. */
  notFound?: Record<string, string>;
  /**
   * A request body the operation accepts, written beside the area's other facts: the tests' coverage
   * lists (seed plans, the attack suite, the soak) take their bodies from here, so a new operation
   * needs no edit in them.
   */
  example?: { body: Record<string, unknown> };
}

/** The shape of one operation's data: what each area's schema map gives each of its operations. */
export interface OperationSchemas<
  P extends z.ZodObject = z.ZodObject,
  Q extends z.ZodObject = z.ZodObject,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType = z.ZodType,
> {
  params: P;
  query: Q;
  body: B;
  /** The schema of `data` (for lists: of one item). */
  response: R;
}

/** A code's resource in words: `oauth_app` → `OAuth application` (404 details, here and over MCP). */
export const resourceWords = (s: string): string =>
  s
    .replace(/_/g, ' ')
    .replace(/\boauth\b/g, 'OAuth')
    .replace(/\bapp\b/g, 'application');

/**
 * The get, update and list routes of a workspace's own content records (forms, pages): the same
 * three operations, alike but for the noun.
 */
export function ownRoutes<N extends string>(noun: N, tag: string, exampleName: string) {
  const list = `/workspaces/{workspace}/${noun}s`;
  const notFound = { workspace: 'workspace_not_found', [noun]: `${noun}_not_found` };
  return {
    get: {
      method: 'GET',
      path: `${list}/{${noun}}`,
      tag,
      summary: `Get a ${noun}`,
      access: 'bearer',
      ability: 'content:read',
      status: 200,
      extension: true,
      notFound,
    },
    update: {
      method: 'PATCH',
      path: `${list}/{${noun}}`,
      tag,
      summary: `Update a ${noun}`,
      access: 'bearer',
      ability: 'content:write',
      status: 200,
      notFound,
      example: { body: { name: exampleName } },
    },
    list: {
      method: 'GET',
      path: list,
      tag,
      summary: `List the workspace's ${noun}s, most recently updated first (never updated last)`,
      access: 'bearer',
      ability: 'content:read',
      status: 200,
      list: true,
      extension: true,
      notFound: { workspace: 'workspace_not_found' },
    },
  } as const satisfies Record<string, Route>;
}
