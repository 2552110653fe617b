/** `--set key.path=value`: typed values into a request body. */
import { UsageError } from './errors.js';
import { parseTypedValue, type ValueSource } from './fields.js';

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The value of `--set key=value`: the typed-value rules of `wcm api -F` (src/cli/fields.ts,
 * docs/cli.md "Typed values"), so both flags read `2026`, `"2026"`, `@bio.txt` the same way.
 */
export function parseSetValue(raw: string, from: ValueSource = { cwd: process.cwd() }): unknown {
  return parseTypedValue(raw, { ...from, flag: '--set' });
}

/**
 * Applies one `--set key=value` to `body`: a dotted key reaches into objects
 * (`chat.greeting=Hi` → `{"chat": {"greeting": "Hi"}}`), creating plain objects on the way.
 */
export function applySet(body: Record<string, unknown>, assignment: string, from?: ValueSource): void {
  const eq = assignment.indexOf('=');
  if (eq <= 0)
    throw new UsageError(
      `\`--set\` takes key=value; received \`${assignment}\`.`,
      'Example: --set bio="Open 8 to 6" --set chat.greeting=Hi',
    );
  const key = assignment.slice(0, eq);
  const parts = key.split('.');
  if (parts.some((p) => !p || FORBIDDEN.has(p))) {
    throw new UsageError(
      `\`--set\`: \`${key}\` is not a usable key (empty segment, or one of __proto__, constructor, prototype).`,
    );
  }
  let at: Record<string, unknown> = body;
  for (const [i, part] of parts.slice(0, -1).entries()) {
    const next = Object.hasOwn(at, part) ? at[part] : undefined;
    if (next === undefined) at = at[part] = {} as Record<string, unknown>;
    else if (next !== null && typeof next === 'object' && !Array.isArray(next)) at = next as Record<string, unknown>;
    else {
      const where = parts.slice(0, i + 1).join('.');
      throw new UsageError(
        `\`--set ${key}=…\`: \`${where}\` is already set to ${JSON.stringify(next)}, so it cannot hold \`${parts.slice(i + 1).join('.')}\`.`,
      );
    }
  }
  at[parts[parts.length - 1]] = parseSetValue(assignment.slice(eq + 1), from);
}

/** A shell-ready way to send `raw` as a JSON string: `'display_name="2026"'`. */
const quotedSet = (key: string, raw: string) => `'${key}=${JSON.stringify(raw).replace(/'/g, "'\\''")}'`;

/**
 * A 422 on a member that `--set` typed as a number, boolean or null (`--set display_name=2026`)
 * gets a resolution saying how to send it as text instead: quoted, as JSON. Anything else is
 * returned as it came.
 */
export function withSetHints(err: unknown, assignments: readonly string[]): unknown {
  const api = err as { status?: number; problem?: { errors?: Record<string, string[]>; resolution?: string } };
  if (api?.status !== 422 || !api.problem?.errors) return err;
  const hints: string[] = [];
  for (const a of assignments) {
    const eq = a.indexOf('=');
    if (eq <= 0) continue;
    const key = a.slice(0, eq);
    const raw = a.slice(eq + 1);
    if (!Object.hasOwn(api.problem.errors, key) || raw.startsWith('@')) continue;
    const typed = parseTypedValue(raw, { cwd: process.cwd(), flag: '--set' });
    if (typed === null || typeof typed === 'number' || typeof typed === 'boolean')
      hints.push(
        `\`--set ${a}\` sent ${typed === null ? 'null' : `the ${typeof typed} ${raw}`}; to send the text "${raw}", quote it as JSON: --set ${quotedSet(key, raw)}.`,
      );
  }
  if (hints.length) api.problem.resolution = [...hints, api.problem.resolution].filter(Boolean).join(' ');
  return err;
}
