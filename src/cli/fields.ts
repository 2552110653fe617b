import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './errors.js';

/**
 * A `-f` value, typed like JSON where it reads as a JSON literal: numbers, `true`, `false`,
 * `null`, and `{…}`/`[…]` that parse; `@file` is the file's text; anything else is a string.
 */
export function parseFieldValue(raw: string, cwd: string): unknown {
  if (raw.startsWith('@')) {
    const file = path.resolve(cwd, raw.slice(1));
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`\`-f …=@${raw.slice(1)}\`: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`);
    }
  }
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  // Leading zeros ("007") and hex stay strings: they are usually identifiers, not numbers.
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) {
    const n = Number(raw);
    if (Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n))) return n;
  }
  if (/^\s*[[{]/.test(raw)) {
    try {
      return JSON.parse(raw);
    } catch {
      /* not JSON after all: a string */
    }
  }
  return raw;
}

/** Splits `items[][title]` into ['items', '', 'title']. */
function keyPath(key: string, raw: string): string[] {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) throw new UsageError(`\`-f ${raw}\`: \`${key}\` is not a field name (use name, name[sub] or name[] for arrays).`);
  return [m[1], ...[...m[2].matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1])];
}

/**
 * Builds a JSON object from `-f key=value` fields, `gh api` style: `a[b]=1` nests, `a[]=x` appends,
 * and `items[][title]=T -f items[][description]=D` fills one array element until a key repeats.
 */
export function buildFields(fields: string[], cwd: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const raw of fields) {
    const eq = raw.indexOf('=');
    if (eq <= 0) throw new UsageError(`\`-f ${raw}\` must look like key=value.`, 'Example: -f title=FAQ -f "items[][title]=Hours?"');
    const segs = keyPath(raw.slice(0, eq), raw);
    const value = parseFieldValue(raw.slice(eq + 1), cwd);
    let cur: Record<string, unknown> | unknown[] = root;
    for (let i = 0; i < segs.length - 1; i++) {
      const seg = segs[i];
      const next = segs[i + 1];
      const fresh = () => (next === '' ? [] : {});
      if (Array.isArray(cur)) {
        if (seg !== '') throw new UsageError(`\`-f ${raw}\`: cannot name a member inside an array.`);
        const last = cur[cur.length - 1] as Record<string, unknown> | undefined;
        // Reuse the last element while it lacks the next key; a repeated key starts a new element.
        if (last && typeof last === 'object' && !Array.isArray(last) && next !== '' && !(next in last)) cur = last;
        else {
          const c = fresh();
          cur.push(c);
          cur = c as Record<string, unknown>;
        }
      } else {
        const existing = cur[seg];
        if (existing === undefined || typeof existing !== 'object' || existing === null) cur[seg] = fresh();
        cur = cur[seg] as Record<string, unknown> | unknown[];
      }
    }
    const lastSeg = segs[segs.length - 1];
    if (Array.isArray(cur)) {
      if (lastSeg !== '') throw new UsageError(`\`-f ${raw}\`: cannot name a member inside an array.`);
      cur.push(value);
    } else if (lastSeg === '') {
      throw new UsageError(`\`-f ${raw}\`: \`[]\` needs a name before it.`);
    } else {
      cur[lastSeg] = value;
    }
  }
  return root;
}

/** `Name: value` headers, keyed in lower case. */
export function parseHeaders(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of raw) {
    const i = h.indexOf(':');
    if (i <= 0) throw new UsageError(`\`-H ${h}\` must look like "Name: value".`);
    out[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
  }
  return out;
}
