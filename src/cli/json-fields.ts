import type { z } from 'zod';
import { UsageError } from './errors.js';

/** `--json a,b.c`: a comma-separated list of field paths (letters, digits, `_`, dots). */
export const FIELD_LIST = /^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*(,[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*)*$/;

type Def = { type: string; innerType?: z.ZodType; element?: z.ZodType; in?: z.ZodType };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The field paths a record of this schema has: its members, and members of member objects (dotted). */
export function fieldPaths(schema: z.ZodType, prefix = '', depth = 0): string[] {
  let s = schema;
  for (let d = defOf(s); ['optional', 'nullable', 'default', 'readonly', 'prefault'].includes(d.type); d = defOf(s))
    s = d.innerType!;
  if (defOf(s).type === 'pipe') s = defOf(s).in!;
  if (defOf(s).type !== 'object') return [];
  const out: string[] = [];
  for (const [k, member] of Object.entries((s as z.ZodObject).shape)) {
    const p = prefix ? `${prefix}.${k}` : k;
    out.push(p);
    if (depth < 2) out.push(...fieldPaths(member as z.ZodType, p, depth + 1));
  }
  return out;
}

/** A `--json` field the output does not have: plain text on a terminal even with `--json` (main.ts). */
export class JsonFieldsError extends UsageError {
  override readonly name = 'JsonFieldsError';
}

/** Help's "JSON fields" section, wrapped to `width`; '' when there are none. Loads the contract only for an operation. */
export async function jsonFieldsHelp(output: string | readonly string[], width: number): Promise<string> {
  let paths: readonly string[] = output as readonly string[];
  if (typeof output === 'string') {
    const op = (await import('../contract/operations.js')).getOperation(output);
    paths = op ? fieldPaths(op.response) : [];
  }
  if (!paths.length) return '';
  const lines: string[] = [];
  let line = ' ';
  for (const p of paths) {
    if (line.length + p.length + 2 > width && line.trim()) {
      lines.push(line);
      line = ' ';
    }
    line += ` ${p},`;
  }
  lines.push(line.replace(/,$/, ''));
  return `\nJSON fields (\`--json a,b.c\` prints only those; \`--json\` alone prints every field):\n${lines.join('\n')}\n`;
}

/**
 * Checks `--json` fields against what the operation returns, before anything is sent: a typo is a
 * usage error listing the fields there are.
 */
export async function checkFields(fields: string[], output: string | readonly string[]): Promise<void> {
  let valid: readonly string[] = output as readonly string[];
  const operationId = typeof output === 'string' ? output : null;
  if (operationId) {
    const { getOperation } = await import('../contract/operations.js');
    const op = getOperation(operationId);
    if (!op) return;
    valid = fieldPaths(op.response);
  }
  if (!valid.length) return;
  const unknown = fields.filter((f) => !valid.includes(f));
  if (unknown.length) {
    throw new JsonFieldsError(
      `${unknown.map((f) => `\`${f}\``).join(', ')} ${unknown.length === 1 ? 'is not a field' : 'are not fields'} of ${operationId ? `\`${operationId}\`` : 'this output'} (in \`--json\`).`,
      `Fields: ${valid.join(', ')}`,
    );
  }
}

function pick(record: unknown, fields: string[]): unknown {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return record;
  const out: Record<string, unknown> = {};
  for (const path of fields) {
    const parts = path.split('.');
    let from: unknown = record;
    for (const p of parts) from = from && typeof from === 'object' ? (from as Record<string, unknown>)[p] : undefined;
    if (from === undefined) continue;
    let to = out;
    for (const p of parts.slice(0, -1)) to = (to[p] ??= {}) as Record<string, unknown>;
    to[parts[parts.length - 1]] = from;
  }
  return out;
}

/** Only the chosen fields of a record, or of each record of a list. */
export function selectFields(value: unknown, fields: string[]): unknown {
  return Array.isArray(value) ? value.map((v) => pick(v, fields)) : pick(value, fields);
}
