// docs/fixtures.md describes the store fixture format whole: every collection of the schema the
// store reads fixtures with, and every member of its records (nested ones included), in the
// paragraph of its collection. A member added to the schema without its line in the page fails here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { FIXTURE_COLLECTIONS, FixtureSchema } from '../../src/store/fixtures/schema.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const page = readFileSync(path.join(ROOT, 'docs/fixtures.md'), 'utf8');

/** The object schema inside wrappers (optional, default, nullable, array, refine, transform). */
function objectOf(schema: z.ZodType): z.ZodObject | undefined {
  let s: unknown = schema;
  for (let i = 0; i < 10 && s; i++) {
    if (s instanceof z.ZodObject) return s;
    const def = (s as { def?: Record<string, unknown> }).def ?? {};
    s = def.innerType ?? def.element ?? def.in ?? undefined;
  }
  return undefined;
}

/** Every member name of a record, nested objects' members included. */
function members(schema: z.ZodType, seen = new Set<string>()): Set<string> {
  const obj = objectOf(schema);
  if (!obj) return seen;
  for (const [k, v] of Object.entries(obj.shape)) {
    seen.add(k);
    members(v as z.ZodType, seen);
  }
  return seen;
}

/** The paragraph of docs/fixtures.md that starts with the collection's name in bold. */
function paragraph(collection: string): string {
  const start = page.indexOf(`**${collection}**`);
  if (start < 0) return '';
  const end = page.indexOf('\n\n', start);
  return page.slice(start, end < 0 ? undefined : end);
}

describe('docs/fixtures.md', () => {
  it('names every collection of the fixture schema, in the order they are read and exported', () => {
    const order = page.slice(page.indexOf('this order'), page.indexOf('```json', page.indexOf('this order')));
    const named = [...order.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    expect(named).toEqual([...FIXTURE_COLLECTIONS]);
    expect(Object.keys(FixtureSchema.shape).filter((k) => k !== 'version')).toEqual([...FIXTURE_COLLECTIONS]);
  });

  it.each([...FIXTURE_COLLECTIONS])('%s: the paragraph names every member of its records', (collection) => {
    const text = paragraph(collection);
    expect(text, `no paragraph starting with **${collection}**`).not.toBe('');
    const schema = FixtureSchema.shape[collection] as unknown as z.ZodType;
    // Kept for reading fixtures written before the generation counter, never written: not documented.
    const legacy = new Set(['used_refresh_sha256']);
    const missing = [...members(schema)].filter((m) => !legacy.has(m) && !text.includes(`\`${m}\``));
    expect(missing).toEqual([]);
  });
});
