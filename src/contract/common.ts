import { z } from 'zod';
import { ABILITIES } from './enums.js';

export const AbilitySchema = z.enum(ABILITIES);

export const Uuid = z.uuid();
export const Timestamp = z.string().meta({ format: 'date-time' });

/** Keys that must never reach an object we merge into: they would reach for the prototype. */
export const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
export const MAX_JSON_DEPTH = 16;

function jsonProblem(value: unknown, depth: number): string | null {
  if (depth > MAX_JSON_DEPTH) return `nesting deeper than ${MAX_JSON_DEPTH} levels`;
  if (Array.isArray(value)) {
    for (const v of value) {
      const p = jsonProblem(v, depth + 1);
      if (p) return p;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (FORBIDDEN_KEYS.has(k)) return `the key \`${k}\` is not allowed`;
      const p = jsonProblem(v, depth + 1);
      if (p) return p;
    }
  }
  return null;
}

/**
 * A free-form JSON object (form settings, page chat extras, attribution). Free-form still has
 * bounds: no prototype keys, bounded depth.
 */
export const JsonObject = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  const p = jsonProblem(value, 1);
  if (p) ctx.addIssue({ code: 'custom', message: `Invalid object: ${p}` });
});

/** Query parameters shared by every list operation: `limit` 1–100 (default 25) and an opaque `cursor`. */
export const PagingQuery = {
  cursor: z.string().optional().meta({ description: 'Opaque cursor from meta.next_cursor.' }),
  limit: z.coerce.number().int().min(1).max(100).default(25).meta({ description: 'Page size, 1 to 100.' }),
};

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.string(),
    detail: z.string(),
    resolution: z.string(),
    instance: z.string(),
    request_id: z.string(),
    errors: z.record(z.string(), z.array(z.string())),
  })
  .meta({ id: 'Problem', description: 'An error (application/problem+json).' });

export const Meta = z.object({ request_id: z.string() });
export const ListMeta = z.object({ request_id: z.string(), next_cursor: z.string().nullable() });

/** The success envelope around one result. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ data, meta: Meta });
}

/** The success envelope around one page of a list. */
/** A body with at least one member: an empty PATCH is a mistake, not a no-op. */
export function nonEmpty<T extends z.ZodObject>(schema: T) {
  return schema.refine((v) => Object.keys(v as object).length > 0, {
    message: 'The body is empty: send at least one member to change.',
    // One error per mistake: a body whose only member is unknown (`--set nope=1`) is reported as
    // that unknown member, not also as empty (the unknown member is stripped before this runs).
    when: (payload) => payload.issues.length === 0,
  });
}

/** The query of an operation that takes none, of a plain list, and the `{workspace}` path parameter. */
export const noQuery = z.strictObject({});
export const pagingQuery = z.strictObject({ ...PagingQuery });
export const wsParam = { workspace: Uuid };
