import { z } from 'zod';

/** A UUID's text, in either case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * UUIDs compare case-insensitively (RFC 4122): every uuid a request carries, in its path or its
 * body, goes through here before any lookup, so `775050E9-…` names the same workspace as
 * `775050e9-…`, and what is stored is lower case. Guided by the schema: only members declared as
 * uuids change (a title that happens to look like one stays as written).
 */
export function normalizeUuids(schema: z.ZodType | undefined, value: unknown): unknown {
  if (!schema || value === null || value === undefined) return value;
  const def = (
    schema as unknown as {
      _zod: {
        def: {
          type: string;
          format?: string;
          innerType?: z.ZodType;
          element?: z.ZodType;
          shape?: Record<string, z.ZodType>;
          options?: z.ZodType[];
          in?: z.ZodType;
        };
      };
    }
  )._zod.def;
  switch (def.type) {
    case 'string':
      return def.format === 'uuid' && typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : value;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return normalizeUuids(def.innerType, value);
    case 'pipe':
      return normalizeUuids(def.in, value);
    case 'array':
      return Array.isArray(value) ? value.map((v) => normalizeUuids(def.element, v)) : value;
    case 'union':
      return (def.options ?? []).reduce<unknown>((v, o) => normalizeUuids(o, v), value);
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const shape = (schema as z.ZodObject).shape;
      let out: Record<string, unknown> | null = null;
      for (const [k, s] of Object.entries(shape)) {
        const v = (value as Record<string, unknown>)[k];
        if (v === undefined) continue;
        const n = normalizeUuids(s as z.ZodType, v);
        if (n !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = n;
      }
      return out ?? value;
    }
    default:
      return value;
  }
}
