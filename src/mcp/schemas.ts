import { z } from 'zod';

/**
 * The JSON schemas of the MCP tools, from the same zod schemas the server validates with, in as
 * few bytes as mean the same to a client (docs/mcp.md, context budget). tools.ts builds the tools
 * from them.
 */

/** An empty registry: schema ids are not collected into `$defs`, so every schema stands alone (it is embedded under `body` or `data`). */
const INLINE = z.registry<Record<string, unknown>>();
const schemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

type Node = Record<string, unknown>;

/**
 * An input schema in fewer bytes, meaning the same to a client (docs/mcp.md, context budget: agents pay
 * for every tool's schemas on every turn): no regex beside a `format` (the server still validates
 * with it), `T | null` as a type list rather than an `anyOf`, no `type` beside an `enum` or
 * `const` that already fixes it.
 */
function compact(o: Node): void {
  for (const sub of subschemas(o)) compact(sub);
  if (typeof o.format === 'string') delete o.pattern;
  mergeNullable(o);
  if (typeof o.type === 'string' && ('const' in o || Array.isArray(o.enum))) delete o.type;
  // An empty string is refused with a sentence naming the field; no model sends one on purpose.
  if (o.minLength === 1) delete o.minLength;
  // The member list says it already, and the server refuses other members with a sentence.
  if (o.additionalProperties === false) delete o.additionalProperties;
  // A record's keys are strings and its values anything, which JSON and the schema default say.
  if (isEmpty(o.additionalProperties)) delete o.additionalProperties;
  if (isEmpty(o.propertyNames, { type: 'string' })) delete o.propertyNames;
}

const isEmpty = (v: unknown, same: Node = {}): boolean =>
  !!v && typeof v === 'object' && JSON.stringify(v) === JSON.stringify(same);

/**
 * An output schema as the shape of the data: its members and their types, nested records and
 * lists as `object` and `array`. No value constraints, words or `required`: the server made the
 * data and checked it already, a newer server may send more members or enum values, and the
 * whole schema would be most of tools/list (docs/mcp.md, context budget).
 */
function outputShape(node: Node, depth = 0): Node {
  const type = node.type ?? enumType(node.enum);
  const out: Node = type === undefined ? {} : { type };
  if ('const' in node) out.const = node.const;
  if (depth === 0 && node.properties) {
    out.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, Node>).map(([k, v]) => [k, outputShape(v, 1)]),
    );
  }
  for (const k of ['anyOf', 'oneOf'])
    if (Array.isArray(node[k])) out[k] = (node[k] as Node[]).map((v) => outputShape(v, depth));
  return out;
}

function enumType(values: unknown): string | string[] | undefined {
  if (!Array.isArray(values)) return undefined;
  const types = [...new Set(values.map((v) => (v === null ? 'null' : typeof v)))];
  return types.length === 1 ? types[0] : types;
}

/** The schemas inside a schema (not its member-name maps, whose keys are data, not keywords). */
function subschemas(o: Node): Node[] {
  const out: Node[] = [];
  const add = (v: unknown) => v && typeof v === 'object' && !Array.isArray(v) && out.push(v as Node);
  for (const k of ['properties', '$defs', 'patternProperties'])
    if (o[k] && typeof o[k] === 'object') Object.values(o[k] as Node).forEach(add);
  for (const k of ['items', 'additionalProperties', 'propertyNames', 'not', 'contains']) add(o[k]);
  for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) if (Array.isArray(o[k])) (o[k] as unknown[]).forEach(add);
  return out;
}

function mergeNullables(o: Node): void {
  for (const sub of subschemas(o)) mergeNullables(sub);
  mergeNullable(o);
}

/** `{"anyOf": [X, {"type": "null"}]}` → X with `"null"` added to its type. */
function mergeNullable(o: Node): void {
  const any = o.anyOf;
  if (!Array.isArray(any) || any.length !== 2) return;
  const i = any.findIndex((s: Node) => s && s.type === 'null' && Object.keys(s).length === 1);
  const other = any[1 - i] as Node | undefined;
  if (i < 0 || !other || typeof other.type !== 'string' || Object.keys(other).some((k) => k in o && k !== 'anyOf'))
    return;
  delete o.anyOf;
  Object.assign(o, other, { type: [other.type, 'null'] });
}

export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  if (io === 'output' && schemaCache.has(schema)) return schemaCache.get(schema)!;
  const out = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    metadata: INLINE,
  }) as Record<string, unknown>;
  delete out.$schema;
  if (io === 'input') {
    compact(out);
    return out;
  }
  mergeNullables(out);
  const shape = outputShape(out);
  schemaCache.set(schema, shape);
  return shape;
}
