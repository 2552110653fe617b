import { z } from 'zod';

export type Json = Record<string, unknown>;

/** Hoists zod's per-schema `$defs` into shared components, renaming on a clash of shapes. */
export class Components {
  readonly schemas: Record<string, Json> = {};
  private readonly keyOf = new Map<string, string>();

  add(schema: z.ZodType, io: 'input' | 'output'): Json {
    let raw = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
    const defs = (raw.$defs ?? {}) as Record<string, Json>;
    delete raw.$defs;
    delete raw.$schema;
    // What a client sends is written out where it is sent: openapi-typescript (default settings)
    // types a member with a `default` as always present when its schema is a shared component,
    // which is true of a response and wrong for a request (`items`, `FormField.required`).
    if (io === 'input') {
      const holder = { root: raw };
      inlineDefs(holder, defs);
      raw = holder.root;
      const text = JSON.stringify(raw);
      for (const name of Object.keys(defs)) if (!text.includes(`"#/$defs/${name}"`)) delete defs[name];
    }
    const rename = new Map<string, string>();
    for (const [id, def] of Object.entries(defs)) {
      const text = JSON.stringify(def);
      let name = id;
      if (this.schemas[name] && this.keyOf.get(name) !== text) name = `${id}${io === 'input' ? 'Input' : 'Output'}`;
      rename.set(id, name);
      if (!this.schemas[name]) {
        this.schemas[name] = def;
        this.keyOf.set(name, text);
      }
    }
    const fix = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(fix);
      if (node && typeof node === 'object') {
        const out: Json = {};
        for (const [k, v] of Object.entries(node)) {
          // zod writes the safe-integer range on every integer: noise for readers and generators.
          if ((k === 'minimum' && v === -Number.MAX_SAFE_INTEGER) || (k === 'maximum' && v === Number.MAX_SAFE_INTEGER))
            continue;
          if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) {
            out[k] = `#/components/schemas/${rename.get(v.slice(8)) ?? v.slice(8)}`;
          } else out[k] = fix(v);
        }
        return out;
      }
      return node;
    };
    for (const name of new Set(rename.values())) this.schemas[name] = fix(this.schemas[name]) as Json;
    return fix(raw) as Json;
  }
}

/** Replaces each `#/$defs/…` reference in `node` by a copy of the definition, in place; a definition that refers to itself stays a reference (and a component). */
function inlineDefs(node: Json, defs: Record<string, Json>, open: ReadonlySet<string> = new Set()): void {
  for (const [k, v] of Object.entries(node)) {
    if (!v || typeof v !== 'object') continue;
    const children = Array.isArray(v) ? v : [v];
    children.forEach((child: Json, i) => {
      if (!child || typeof child !== 'object') return;
      const ref = typeof child.$ref === 'string' && child.$ref.startsWith('#/$defs/') ? child.$ref.slice(8) : undefined;
      if (ref && defs[ref] && !open.has(ref)) {
        const copy = {
          ...structuredClone(defs[ref]),
          ...Object.fromEntries(Object.entries(child).filter(([key]) => key !== '$ref')),
        } as Json;
        inlineDefs(copy, defs, new Set([...open, ref]));
        if (Array.isArray(v)) v[i] = copy;
        else node[k] = copy;
      } else inlineDefs(child, defs, open);
    });
  }
}
