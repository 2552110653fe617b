import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './errors.js';
import type { IO } from './io.js';

/** Where typed values read `@file` and `@-` from. */
export interface ValueSource {
  cwd: string;
  /** Standard input's text, read once by the command when some value is `@-`. */
  stdin?: string;
  /** The flag named in errors, e.g. `-F` or `--set`. */
  flag?: string;
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A typed value (`wcm api -F`, `pages update --set`; docs/cli.md "Typed values"): `true`, `false`,
 * `null` and numbers are JSON; a `"…"`, `[…]` or `{…}` that parses as JSON is that JSON (so
 * `"2026"` is a string); `@file` is the file's text and `@-` standard input's; anything else is
 * the string itself.
 */
export function parseTypedValue(raw: string, from: ValueSource): unknown {
  const flag = from.flag ?? '-F';
  if (raw === '@-') {
    if (from.stdin === undefined)
      throw new UsageError(`\`${flag} …=@-\` reads standard input, which is not available here.`);
    return from.stdin;
  }
  if (raw.startsWith('@')) {
    const file = path.resolve(from.cwd, raw.slice(1));
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(
        `\`${flag} …=@${raw.slice(1)}\`: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`,
        'Give a readable file after `@`, or `@-` for standard input.',
      );
    }
  }
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  // Leading zeros ("007"), hex and integers past 2^53 stay strings: they are usually identifiers.
  if (NUMBER.test(raw)) {
    const n = Number(raw);
    if (Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n))) return n;
  }
  if (/^\s*["[{]/.test(raw)) {
    try {
      return JSON.parse(raw);
    } catch {
      /* not JSON after all: a string */
    }
  }
  return raw;
}

/** True when a typed value reads standard input, so the command reads it once, first. */
export const readsStdin = (assignments: readonly string[]) =>
  assignments.some((a) => a.slice(a.indexOf('=') + 1) === '@-');

/** Standard input as text, for `@-` (`flag` names who asked); a terminal is refused so nothing waits. */
export async function readStdinText(io: Pick<IO, 'stdin' | 'isStdinTTY'>, flag: string): Promise<string> {
  if (io.isStdinTTY)
    throw new UsageError(
      `\`${flag} …=@-\` reads standard input, which is a terminal here.`,
      'Pipe the value in, or give a file: `key=@file.txt`.',
    );
  let text = '';
  for await (const chunk of io.stdin) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  return text;
}

/** Splits `items[][title]` into ['items', '', 'title']. */
function keyPath(key: string, raw: string, flag: string): string[] {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m)
    throw new UsageError(
      `\`${flag} ${raw}\`: \`${key}\` is not a field name (use name, name[sub] or name[] for arrays).`,
    );
  return [m[1], ...[...m[2].matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1])];
}

/** One `-f` (raw: the value is a string) or `-F` (typed) field. */
export interface Field {
  assignment: string;
  typed: boolean;
}

/**
 * Builds a JSON object from `-f`/`-F key=value` fields, `gh api` style: `a[b]=1` nests, `a[]=x`
 * appends, and `items[][title]=T -f items[][description]=D` fills one array element until a key repeats.
 */
export function buildFields(fields: readonly Field[], from: ValueSource): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const { assignment: raw, typed } of fields) {
    const flag = typed ? '-F' : '-f';
    const eq = raw.indexOf('=');
    if (eq <= 0)
      throw new UsageError(
        `\`${flag} ${raw}\` must look like key=value.`,
        'Example: -f title=FAQ -F limit=10 -f "items[][title]=Hours?"',
      );
    const segs = keyPath(raw.slice(0, eq), raw, flag);
    const value = typed ? parseTypedValue(raw.slice(eq + 1), { ...from, flag }) : raw.slice(eq + 1);
    let cur: Record<string, unknown> | unknown[] = root;
    for (let i = 0; i < segs.length - 1; i++) {
      const seg = segs[i];
      const next = segs[i + 1];
      const fresh = () => (next === '' ? [] : {});
      if (Array.isArray(cur)) {
        if (seg !== '') throw new UsageError(`\`${flag} ${raw}\`: cannot name a member inside an array.`);
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
      if (lastSeg !== '') throw new UsageError(`\`${flag} ${raw}\`: cannot name a member inside an array.`);
      cur.push(value);
    } else if (lastSeg === '') {
      throw new UsageError(`\`${flag} ${raw}\`: \`[]\` needs a name before it.`);
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
