type Json = Record<string, unknown>;

/**
 * An example instance of a JSON schema, valid by construction (a linter checks each against its
 * schema): the first enum value or example, a fixed value per format, a value that matches the
 * pattern, every property of an object, one item of an array.
 */
const FORMAT_EXAMPLES: Record<string, string> = {
  uuid: '775050e9-98e8-4600-8d0f-afce4b67e137',
  'date-time': '2026-11-20T11:38:00.000Z',
  email: 'ada@example.com',
};
const PATTERN_EXAMPLES = ['example', 'whatsapp_contact', 'wcm_app_a1B2c3D4e5F6g7H8i9J0k1L2', 'grant_q7R2s9T4u1V6w3X8'];

function exampleOf(schema: Json, schemas: Record<string, Json>, where: string, depth = 0): unknown {
  if (depth > 12) throw new Error(`openapi: example for ${where} nests too deep`);
  if (typeof schema.$ref === 'string')
    return exampleOf(schemas[schema.$ref.split('/').pop()!], schemas, where, depth + 1);
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const k of ['anyOf', 'oneOf'] as const) {
    const branches = schema[k] as Json[] | undefined;
    if (branches) return exampleOf(branches.find((b) => b.type !== 'null') ?? branches[0], schemas, where, depth + 1);
  }
  const type = Array.isArray(schema.type)
    ? (schema.type as string[]).find((t) => t !== 'null')
    : (schema.type as string | undefined);
  switch (type) {
    case 'object': {
      const out: Json = {};
      for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, Json>))
        out[k] = exampleOf(v, schemas, `${where}.${k}`, depth + 1);
      return out;
    }
    case 'array': {
      const min = (schema.minItems as number | undefined) ?? 1;
      return schema.maxItems === 0
        ? []
        : Array.from({ length: Math.max(1, min) }, () =>
            exampleOf((schema.items ?? {}) as Json, schemas, `${where}[]`, depth + 1),
          );
    }
    case 'integer':
    case 'number':
      return Math.min((schema.minimum as number | undefined) ?? 1, (schema.maximum as number | undefined) ?? Infinity);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string': {
      if (typeof schema.format === 'string' && FORMAT_EXAMPLES[schema.format]) return FORMAT_EXAMPLES[schema.format];
      const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : null;
      const min = (schema.minLength as number | undefined) ?? 0;
      const text = pattern
        ? PATTERN_EXAMPLES.find((c) => pattern.test(c) && c.length >= min)
        : 'example'.padEnd(min, '.');
      if (text === undefined)
        throw new Error(
          `openapi: no example matches ${where}'s pattern ${String(schema.pattern)}; give the schema .meta({ examples: […] })`,
        );
      return schema.maxLength !== undefined ? text.slice(0, schema.maxLength as number) : text;
    }
    default:
      return {};
  }
}

/** Puts an example on each request body and success response, once every component is known. */
export function addExamples(paths: Record<string, Json>, schemas: Record<string, Json>): void {
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item) as Array<[string, Json]>) {
      const where = `${method.toUpperCase()} ${path}`;
      const body = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
      if (body?.['application/json'])
        body['application/json'].example = exampleOf(body['application/json'].schema as Json, schemas, `${where} body`);
      for (const [status, res] of Object.entries(op.responses as Record<string, Json>)) {
        const json = (res.content as Record<string, Json> | undefined)?.['application/json'];
        if (json && /^2/.test(status)) json.example = exampleOf(json.schema as Json, schemas, `${where} ${status}`);
      }
    }
  }
}
