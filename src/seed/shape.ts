import type { z } from 'zod';

/** What we know, before running, about the JSON type of a value a step will return. */
export type Kind = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object' | 'unknown';

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  items?: z.ZodType[];
  valueType?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  values?: unknown[];
  getter?: () => z.ZodType;
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** Strips wrappers; `maybeAbsent` says whether null or nothing may stand there instead. */
function unwrap(schema: z.ZodType): { schema: z.ZodType; maybeAbsent: boolean } {
  let s = schema;
  let maybeAbsent = false;
  for (let guard = 0; guard < 32; guard++) {
    const d = defOf(s);
    if (WRAPPERS.has(d.type) && d.innerType) {
      if (d.type === 'optional' || d.type === 'nullable') maybeAbsent = true;
      s = d.innerType;
    } else if (d.type === 'pipe' && d.in) s = d.in;
    else if (d.type === 'lazy' && d.getter) s = d.getter();
    else break;
  }
  return { schema: s, maybeAbsent };
}

function kindOf(schema: z.ZodType): Kind {
  const { schema: s, maybeAbsent } = unwrap(schema);
  if (maybeAbsent) return 'unknown';
  const d = defOf(s);
  switch (d.type) {
    case 'string':
    case 'enum':
    case 'template_literal':
      return 'string';
    case 'number':
    case 'int':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
    case 'tuple':
      return 'array';
    case 'object':
    case 'record':
      return 'object';
    case 'literal': {
      const kinds = new Set((d.values ?? []).map((v) => (v === null ? 'null' : typeof v)));
      const [only] = kinds;
      return kinds.size === 1 && ['string', 'number', 'boolean', 'null'].includes(only as string)
        ? (only as Kind)
        : 'unknown';
    }
    case 'union': {
      const kinds = new Set((d.options ?? []).map(kindOf));
      return kinds.size === 1 ? [...kinds][0] : 'unknown';
    }
    default:
      return 'unknown';
  }
}

export type Lookup = { ok: true; kind: Kind } | { ok: false; reason: string };

/**
 * Follows a reference path (`data.items.0.title`) through a response schema, so a typo is caught
 * before any request and the referenced value's JSON type is known for checking the body it goes in.
 */
export function lookupPath(schema: z.ZodType, path: string[], walked: string[] = []): Lookup {
  if (!path.length) return { ok: true, kind: kindOf(schema) };
  const [seg, ...rest] = path;
  const here = walked.length ? `\`${walked.join('.')}\`` : 'the response';
  const { schema: s } = unwrap(schema);
  const d = defOf(s);
  switch (d.type) {
    case 'object': {
      const shape = d.shape ?? {};
      if (!Object.hasOwn(shape, seg)) {
        return {
          ok: false,
          reason: `${here} has no member \`${seg}\` (it has ${Object.keys(shape)
            .map((k) => `\`${k}\``)
            .join(', ')})`,
        };
      }
      return lookupPath(shape[seg], rest, [...walked, seg]);
    }
    case 'array':
      if (!/^\d+$/.test(seg))
        return {
          ok: false,
          reason: `${here} is a list: follow it with an index such as \`${[...walked, '0'].join('.')}\`, not \`${seg}\``,
        };
      return lookupPath(d.element!, rest, [...walked, seg]);
    case 'tuple': {
      const item = /^\d+$/.test(seg) ? d.items?.[Number(seg)] : undefined;
      if (!item) return { ok: false, reason: `${here} has no entry \`${seg}\`` };
      return lookupPath(item, rest, [...walked, seg]);
    }
    case 'record':
      return lookupPath(d.valueType!, rest, [...walked, seg]);
    case 'union': {
      let first: Lookup | null = null;
      const kinds = new Set<Kind>();
      for (const option of d.options ?? []) {
        const r = lookupPath(option, path, walked);
        if (r.ok) kinds.add(r.kind);
        else first ??= r;
      }
      if (!kinds.size) return first ?? { ok: false, reason: `${here} has no member \`${seg}\`` };
      return { ok: true, kind: kinds.size === 1 ? [...kinds][0] : 'unknown' };
    }
    case 'intersection': {
      const l = lookupPath(d.left!, path, walked);
      return l.ok ? l : lookupPath(d.right!, path, walked);
    }
    case 'any':
    case 'unknown':
      return { ok: true, kind: 'unknown' };
    default:
      return {
        ok: false,
        reason: `${here} is ${kindOf(s) === 'unknown' ? 'a single value' : `a ${kindOf(s)}`}; it has no member \`${seg}\``,
      };
  }
}
