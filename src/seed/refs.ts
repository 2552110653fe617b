/**
 * References inside API-step fixtures (docs/cli.md: Seeding any instance): `${step:json.path}`, `${env:NAME}`, and
 * either with a `|default`. `$${` writes a literal `${`. A string that is exactly one reference
 * takes the referenced value with its JSON type; references inside longer strings become text.
 */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface EnvRef {
  kind: 'env';
  name: string;
  default?: string;
  /** The reference as written, `${…}` included. */
  raw: string;
}

export interface StepRef {
  kind: 'step';
  step: string;
  /** Segments of the path into the step's response envelope, e.g. ['data', 'items', '0', 'title']. */
  path: string[];
  default?: string;
  raw: string;
}

export type Ref = EnvRef | StepRef;
export type Part = string | Ref;

/** Letters, digits, `_` and `-`; no `:`, `.` or `|`, so a reference reads one way only. */
export const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Splits a string into literal text and references; `error` says what is wrong with a bad one. */
export function parseTemplate(s: string): { parts: Part[]; error?: undefined } | { parts?: undefined; error: string } {
  const parts: Part[] = [];
  let text = '';
  let i = 0;
  while (i < s.length) {
    if (s.startsWith('$${', i)) {
      text += '${';
      i += 3;
      continue;
    }
    if (!s.startsWith('${', i)) {
      text += s[i++];
      continue;
    }
    const end = s.indexOf('}', i + 2);
    if (end === -1)
      return { error: `\`${s.slice(i, i + 40)}\` has no closing \`}\` (write \`$\${\` for a literal \`\${\`).` };
    const raw = s.slice(i, end + 1);
    const ref = parseRef(raw);
    if (typeof ref === 'string') return { error: ref };
    if (text) parts.push(text);
    text = '';
    parts.push(ref);
    i = end + 1;
  }
  if (text || !parts.length) parts.push(text);
  return { parts };
}

function parseRef(raw: string): Ref | string {
  const inner = raw.slice(2, -1);
  const bar = inner.indexOf('|');
  const body = bar === -1 ? inner : inner.slice(0, bar);
  const fallback = bar === -1 ? undefined : inner.slice(bar + 1);
  const colon = body.indexOf(':');
  if (colon === -1)
    return `\`${raw}\` is not a reference: write \`\${step:data.id}\` or \`\${env:NAME}\` (and \`$\${\` for a literal \`\${\`).`;
  const source = body.slice(0, colon).trim();
  const rest = body.slice(colon + 1).trim();
  if (source === 'env') {
    if (!ENV_NAME.test(rest))
      return `\`${raw}\`: \`${rest}\` is not an environment variable name (letters, digits and _).`;
    return { kind: 'env', name: rest, default: fallback, raw };
  }
  if (!STEP_NAME.test(source)) return `\`${raw}\`: \`${source}\` is not a step name (letters, digits, _ and -).`;
  if (!rest) return `\`${raw}\` needs a path into the step's response, e.g. \`\${${source}:data.id}\`.`;
  const path = rest.split('.');
  if (path.some((p) => p === ''))
    return `\`${raw}\`: \`${rest}\` has an empty segment; write paths like \`data.items.0.title\`.`;
  return { kind: 'step', step: source, path, default: fallback, raw };
}

/** The env value a reference gives, or undefined when it has none (unset or empty, and no default). */
export function envValue(ref: EnvRef, env: NodeJS.ProcessEnv): string | undefined {
  const v = env[ref.name];
  return v !== undefined && v !== '' ? v : ref.default;
}

/** Whether a parsed string is exactly one reference (and so keeps the value's JSON type). */
export function wholeRef(parts: Part[]): Ref | null {
  return parts.length === 1 && typeof parts[0] !== 'string' ? parts[0] : null;
}

/** Every string in a JSON value with its path, depth first, in document order. */
export function* strings(
  value: unknown,
  path: Array<string | number> = [],
): Generator<{ value: string; path: Array<string | number> }> {
  if (typeof value === 'string') yield { value, path };
  else if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* strings(value[i], [...path, i]);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) yield* strings(v, [...path, k]);
}

/**
 * Rebuilds a JSON value with each string's references replaced. `whole` gives the value for a
 * string that is exactly one reference; `text` the text for a reference inside a longer string.
 * Templates must have parsed already (the validator reports bad ones first).
 */
export function substitute(
  value: unknown,
  resolve: {
    whole(ref: Ref, path: Array<string | number>): unknown;
    text(ref: Ref, path: Array<string | number>): string;
  },
  path: Array<string | number> = [],
): unknown {
  if (typeof value === 'string') {
    const t = parseTemplate(value);
    if (t.error !== undefined) throw new Error(t.error);
    const one = wholeRef(t.parts);
    if (one) return resolve.whole(one, path);
    return t.parts.map((p) => (typeof p === 'string' ? p : resolve.text(p, path))).join('');
  }
  if (Array.isArray(value)) return value.map((v, i) => substitute(v, resolve, [...path, i]));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substitute(v, resolve, [...path, k]);
    return out;
  }
  return value;
}

/** The value at `path` inside a JSON value, or `undefined` when it is not there. */
export function valueAt(root: unknown, path: string[]): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(seg)) return undefined;
      cur = cur[Number(seg)];
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, seg)) {
      cur = (cur as Record<string, unknown>)[seg];
    } else return undefined;
  }
  return cur;
}

/** How a referenced value reads inside a longer string: text as is, other JSON as JSON. */
export function asText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** `$.steps[2].body.items[0].title` */
export function jsonPath(path: ReadonlyArray<string | number>): string {
  return (
    '$' +
    path
      .map((p) =>
        typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`,
      )
      .join('')
  );
}
