// The value checks of a seed step (docs/cli.md: Seeding any instance): parameters, idempotency key and body
// against the operation's schemas, before anything is sent.
import type { z } from 'zod';
import { fieldErrors } from '../contract/issues.js';
import type { AnyOperation } from '../contract/operations.js';
import type { RawStep } from './parse.js';
import { envValue, parseTemplate, substitute, valueAt, wholeRef, type Ref } from './refs.js';
import type { Kind } from './shape.js';

type Path = Array<string | number>;
type Params = Record<string, string | number | boolean>;
type Problem = (rel: Path, message: string) => void;

/** Where a reference to a not-yet-run step sits in a value being validated, and what type it will have. */
interface Placeholder {
  path: Path;
  kind: Kind;
  ref: string;
}

/** A problem inside the checked value: `path` is relative to the value's place in the step. */
interface ValueProblem {
  path: Path;
  message: string;
}

interface CheckOptions {
  env: NodeJS.ProcessEnv;
  /** The type each step reference will have, by its raw text (from the referenced step's response schema). */
  kinds: Map<string, Kind>;
  /** Path and query values: they travel as text, as the server receives them. */
  wire: boolean;
  /** How the value is named in messages: `body` or `parameters`. */
  what: string;
  operationId: string;
}

const KIND_NAME: Record<Kind, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  null: 'null',
  array: 'a list',
  object: 'an object',
  unknown: 'a value',
};

const SAMPLE: Record<Kind, unknown> = {
  string: 'x',
  number: 0,
  boolean: false,
  null: null,
  array: [],
  object: {},
  unknown: null,
};

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v} (${JSON.stringify(v).slice(0, 40)})`;
}

const expectedName = (e: string) =>
  e === 'int' ? 'an integer' : e === 'array' ? 'a list' : /^[aeiou]/.test(e) ? `an ${e}` : `a ${e}`;

/** The value with each reference replaced by a stand-in of the type it will have; `holes` says where. */
function fillPlaceholders(value: unknown, o: CheckOptions): { filled: unknown; holes: Placeholder[] } {
  const holes: Placeholder[] = [];
  const filled = substitute(value, {
    whole: (ref, p) => {
      if (ref.kind === 'env' && envValue(ref, o.env) !== undefined) return envValue(ref, o.env);
      if (ref.kind === 'env') {
        // Already reported as unset: do not report its empty stand-in too.
        holes.push({ path: p, kind: 'unknown', ref: ref.raw });
        return o.wire ? 'x' : null;
      }
      const kind = o.wire ? 'unknown' : (o.kinds.get(ref.raw) ?? 'unknown');
      holes.push({ path: p, kind, ref: ref.raw });
      return o.wire ? 'x' : SAMPLE[kind];
    },
    text: (ref, p) => {
      if (ref.kind === 'env' && envValue(ref, o.env) !== undefined) return envValue(ref, o.env)!;
      holes.push({ path: p, kind: o.wire || ref.kind === 'env' ? 'unknown' : 'string', ref: ref.raw });
      return 'x';
    },
  });
  return { filled, holes };
}

/**
 * Checks a value that may hold references against an operation's schema. A reference to an earlier
 * step's result stands in as a placeholder of the type that step's response schema promises, so the
 * value's shape is checked while the referenced value is still unknown.
 */
function checkWithPlaceholders(schema: z.ZodType, value: unknown, o: CheckOptions): ValueProblem[] {
  const { filled, holes } = fillPlaceholders(value, o);
  const input = o.wire
    ? Object.fromEntries(Object.entries(filled as Record<string, unknown>).map(([k, v]) => [k, String(v)]))
    : filled;
  const r = schema.safeParse(input);
  if (r.success) return [];
  const problems: ValueProblem[] = [];
  for (const issue of r.error.issues) {
    const ip = issue.path as Path;
    const hole = holes.find((h) => h.path.length <= ip.length && h.path.every((seg, i) => seg === ip[i]));
    // Inside a placeholder only a wrong JSON type is certain; lengths, formats and members wait for the real value.
    if (hole && !(hole.kind !== 'unknown' && issue.code === 'invalid_type' && hole.path.length === ip.length)) continue;
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        problems.push({
          path: [...ip, key],
          message: `unknown member \`${key}\`: not part of ${o.operationId}'s ${o.what}.`,
        });
    } else if (issue.code === 'invalid_type') {
      // zod 4 leaves the received value out of its issues, so say it here.
      const takes = expectedName(issue.expected);
      const got = hole ? undefined : valueAt(input, ip.map(String));
      const message = hole
        ? `\`${hole.ref}\` gives ${KIND_NAME[hole.kind]}, but this field takes ${takes}.`
        : got === undefined
          ? 'Required.'
          : `Must be ${takes}; received ${describe(got)}.`;
      problems.push({ path: ip, message });
    } else {
      const [message] = Object.values(fieldErrors([issue]))[0] ?? [issue.message];
      problems.push({ path: ip, message });
    }
  }
  return problems;
}

// Built once per operation: a long file would otherwise build the same schema once per step.
const partialParams = new WeakMap<AnyOperation, z.ZodType>();
function pathParamsSchema(op: AnyOperation): z.ZodType {
  let s = partialParams.get(op);
  if (!s) partialParams.set(op, (s = op.params.partial()));
  return s;
}

/** A literal (or env-only) idempotency key is checked now; one that uses a step's result waits for it. */
function checkIdempotencyKey(raw: string, env: NodeJS.ProcessEnv, problem: Problem) {
  const t = parseTemplate(raw);
  const value = (x: Ref) => (x.kind === 'env' ? envValue(x, env) : undefined);
  if (!t.parts!.every((x) => typeof x === 'string' || value(x) !== undefined)) return;
  const key = t.parts!.map((x) => (typeof x === 'string' ? x : value(x))).join('');
  if (!/^[\x21-\x7e]{8,120}$/.test(key))
    problem(
      ['idempotency_key'],
      `must be 8 to 120 visible ASCII characters (no spaces); received ${JSON.stringify(key)}.`,
    );
}

/** Checks a step's parameters, key and body against its operation's schemas, references standing in as placeholders. */
export function checkValues(
  op: AnyOperation,
  v: { step: RawStep; env: NodeJS.ProcessEnv; path: Params; query: Params; kinds: Map<string, Kind> },
  problem: Problem,
): void {
  const check = (schema: z.ZodType, value: unknown, base: Path, wire: boolean) => {
    const what = base[0] === 'body' ? 'body' : 'parameters';
    const o = { env: v.env, kinds: v.kinds, wire, what, operationId: op.operationId };
    for (const p of checkWithPlaceholders(schema, value, o)) problem([...base, ...p.path], p.message);
  };
  // Missing path parameters were reported already with a better message than "Required".
  check(pathParamsSchema(op), v.path, ['params'], true);
  check(op.query, v.query, ['params'], true);
  if (v.step.idempotencyKey !== undefined && op.idempotent) checkIdempotencyKey(v.step.idempotencyKey, v.env, problem);
  if (!op.body) return;
  const body = v.step.body ?? {};
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  const parts = typeof body === 'string' ? parseTemplate(body).parts : undefined;
  if (isObject || (parts && wholeRef(parts) !== null)) check(op.body, body, ['body'], false);
  else problem(['body'], `\`body\` must be a JSON object; received ${JSON.stringify(body)}.`);
}
