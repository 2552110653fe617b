import { z } from 'zod';
import { ListMeta, Meta } from '../contract/common.js';
import { fieldErrors } from '../contract/issues.js';
import { getOperation, operationList, type AnyOperation } from '../contract/operations.js';
import type { RawStep, SeedProblem } from './parse.js';
import { jsonPath, parseTemplate, strings, substitute, valueAt, wholeRef, type Json, type Ref } from './refs.js';
import { lookupPath, type Kind } from './shape.js';

/** A step that passed validation: what the runner sends, with references still to resolve. */
export interface PlannedStep {
  file: string;
  index: number;
  /** Position in the whole run (all files), from 0. */
  seq: number;
  name: string;
  operation: AnyOperation;
  /** Path parameters as written, `workspace` filled from the target when not given. */
  path: Record<string, string | number | boolean>;
  query: Record<string, string | number | boolean>;
  /** `undefined`: send no body. */
  body?: Json;
  idempotencyKey?: string;
  /** Earlier steps whose results this step uses. */
  needs: string[];
}

export interface Plan {
  steps: PlannedStep[];
  problems: SeedProblem[];
}

export interface PlanContext {
  env: NodeJS.ProcessEnv;
  /** The target's workspace, used where a step leaves `params.workspace` out. */
  workspace?: string;
}

type Path = Array<string | number>;

/** Where a reference to a not-yet-run step sits in a value being validated, and what type it will have. */
interface Placeholder {
  path: Path;
  kind: Kind;
  ref: string;
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

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v} (${JSON.stringify(v).slice(0, 40)})`;
}

const expectedName = (e: string) =>
  e === 'int' ? 'an integer' : e === 'array' ? 'a list' : /^[aeiou]/.test(e) ? `an ${e}` : `a ${e}`;

/** The response envelope of an operation, as `${step:…}` paths see it. */
export function envelopeSchema(op: AnyOperation): z.ZodType {
  let s = envelopes.get(op);
  if (!s)
    envelopes.set(
      op,
      (s = op.list
        ? z.object({ data: z.array(op.response), meta: ListMeta })
        : z.object({ data: op.response, meta: Meta })),
    );
  return s;
}

// Built once per operation: a long file would otherwise build the same schemas once per step.
const envelopes = new WeakMap<AnyOperation, z.ZodType>();
const partialParams = new WeakMap<AnyOperation, z.ZodType>();
function pathParamsSchema(op: AnyOperation): z.ZodType {
  let s = partialParams.get(op);
  if (!s) partialParams.set(op, (s = op.params.partial()));
  return s;
}

const SAMPLE: Record<Kind, unknown> = {
  string: 'x',
  number: 0,
  boolean: false,
  null: null,
  array: [],
  object: {},
  unknown: null,
};

/** The env value a reference gives, or undefined when it has none (unset or empty, and no default). */
export function envValue(ref: Extract<Ref, { kind: 'env' }>, env: NodeJS.ProcessEnv): string | undefined {
  const v = env[ref.name];
  return v !== undefined && v !== '' ? v : ref.default;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}

/** The closest known name, when it is close enough to be a typo. */
export function suggest(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = distance(name, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

const pathParamNames = (op: AnyOperation) => [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
const queryParamNames = (op: AnyOperation) => Object.keys(op.query.shape);
const list = (names: string[]) => (names.length ? names.map((n) => `\`${n}\``).join(', ') : 'none');

/**
 * Checks every step of every file before anything is sent: known operation, path parameters
 * present, query and body valid for the operation's schemas, references that resolve to an
 * earlier step's response or to the environment, step names unique across all files.
 * A reference to an earlier step's result stands in as a placeholder of the type that step's
 * response schema promises, so the body's shape is checked while its value is still unknown.
 */
export function buildPlan(
  files: Array<{ file: string; steps: RawStep[]; problems?: SeedProblem[] }>,
  ctx: PlanContext,
): Plan {
  const problems: SeedProblem[] = files.flatMap((f) => f.problems ?? []);
  const all = files.flatMap((f) => f.steps);
  const byName = new Map<string, { step: RawStep; seq: number; op?: AnyOperation }>();
  all.forEach((step, seq) => {
    if (step.name === undefined) return;
    const first = byName.get(step.name);
    if (first) {
      const where =
        first.step.file === step.file
          ? `steps[${first.step.index}]`
          : `steps[${first.step.index}] of ${first.step.file}`;
      problems.push({
        file: step.file,
        step: step.name,
        index: step.index,
        path: jsonPath(['steps', step.index, 'name']),
        message: `step name \`${step.name}\` is already used by ${where}; names must be unique across every file of a run.`,
      });
    } else byName.set(step.name, { step, seq, op: step.operation ? getOperation(step.operation) : undefined });
  });

  const planned: PlannedStep[] = [];
  all.forEach((step, seq) => {
    const at = (rel: Path) => ['steps', step.index, ...rel];
    const before = problems.length;
    const problem = (rel: Path, message: string) =>
      problems.push({ file: step.file, step: step.name, index: step.index, path: jsonPath(at(rel)), message });

    let op: AnyOperation | undefined;
    if (step.operation !== undefined) {
      op = getOperation(step.operation);
      if (!op) {
        const near = suggest(
          step.operation,
          operationList.map((o) => o.operationId),
        );
        problem(
          ['operation'],
          `unknown operation \`${step.operation}\`${near ? `; did you mean \`${near}\`?` : ''} (\`wcm openapi\` lists every operationId).`,
        );
      } else if (op.access === 'signature') {
        problem(
          ['operation'],
          `\`${op.operationId}\` needs a payment processor's signature, which a seed file cannot make; use \`wcm payments simulate\`.`,
        );
        op = undefined;
      }
    }

    // References: parse every string; check each against the environment and the steps before this one.
    const needs = new Set<string>();
    const kinds = new Map<string, Kind>();
    let templatesOk = true;
    const sources: Array<[Path, unknown]> = [
      [['params'], step.params],
      [['body'], step.body],
      [['idempotency_key'], step.idempotencyKey],
    ];
    for (const [base, value] of sources) {
      for (const s of strings(value, base)) {
        const t = parseTemplate(s.value);
        if (t.error !== undefined) {
          problem(s.path, t.error);
          templatesOk = false;
          continue;
        }
        for (const ref of t.parts) {
          if (typeof ref === 'string') continue;
          if (ref.kind === 'env') {
            if (envValue(ref, ctx.env) === undefined) {
              problem(
                s.path,
                `environment variable \`${ref.name}\` is not set and \`${ref.raw}\` has no default; set it, or write \`\${env:${ref.name}|default}\`.`,
              );
            }
            continue;
          }
          const target = byName.get(ref.step);
          if (!target) {
            const near = suggest(ref.step, byName.keys());
            problem(
              s.path,
              `\`${ref.raw}\` refers to step \`${ref.step}\`, which is not in this run${near ? `; did you mean \`${near}\`?` : '.'}`,
            );
          } else if (target.seq === seq) {
            problem(
              s.path,
              `\`${ref.raw}\` refers to this step itself; a step can only use the results of steps before it.`,
            );
          } else if (target.seq > seq) {
            const where =
              target.step.file === step.file
                ? `steps[${target.step.index}]`
                : `steps[${target.step.index}] of ${target.step.file}`;
            problem(
              s.path,
              `\`${ref.raw}\` refers to step \`${ref.step}\`, which runs later (${where}); a step can only use the results of steps before it.`,
            );
          } else {
            needs.add(ref.step);
            if (target.op) {
              const found = lookupPath(envelopeSchema(target.op), ref.path);
              if (!found.ok) {
                problem(
                  s.path,
                  `\`${ref.raw}\`: ${found.reason} in ${target.op.operationId}'s response envelope ({"data", "meta"}).`,
                );
              } else
                kinds.set(
                  ref.raw,
                  ref.default === undefined ? found.kind : found.kind === 'string' ? 'string' : 'unknown',
                );
            }
          }
        }
      }
    }
    if (!op || step.name === undefined) return;

    // Parameters: each is a path or a query parameter of this operation.
    const pathNames = pathParamNames(op);
    const queryNames = queryParamNames(op);
    const path: Record<string, string | number | boolean> = {};
    const query: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(step.params)) {
      if (pathNames.includes(k)) path[k] = v;
      else if (queryNames.includes(k)) query[k] = v;
      else
        problem(
          ['params', k],
          `\`${op.operationId}\` has no parameter \`${k}\` (path: ${list(pathNames)}; query: ${list(queryNames)}).`,
        );
    }
    for (const name of pathNames) {
      if (path[name] !== undefined) continue;
      // Given but malformed (the parser said so): not missing as well.
      if (problems.some((p) => p.file === step.file && p.path === jsonPath(at(['params', name])))) continue;
      if (name === 'workspace' && ctx.workspace) path.workspace = ctx.workspace;
      else if (name === 'workspace') {
        problem(
          ['params'],
          `\`params.workspace\` is missing and no workspace is chosen: pass \`--workspace ID\`, set WCM_WORKSPACE, or give \`params.workspace\`.`,
        );
      } else problem(['params'], `missing path parameter \`${name}\` for ${op.operationId} (${op.method} ${op.path}).`);
    }
    if (step.body !== undefined && !op.body) problem(['body'], `\`${op.operationId}\` takes no body; remove \`body\`.`);
    if (step.idempotencyKey !== undefined && !op.idempotent) {
      problem(
        ['idempotency_key'],
        `\`${op.operationId}\` takes no Idempotency-Key (only public operations do); remove \`idempotency_key\`.`,
      );
    }

    if (templatesOk) {
      // With placeholders for values that do not exist yet, check against the operation's schemas.
      const check = (schema: z.ZodType, value: unknown, base: Path, wire: boolean) => {
        const holes: Placeholder[] = [];
        const filled = substitute(value, {
          whole: (ref, p) => {
            if (ref.kind === 'env' && envValue(ref, ctx.env) !== undefined) return envValue(ref, ctx.env);
            if (ref.kind === 'env') {
              // Already reported as unset: do not report its empty stand-in too.
              holes.push({ path: p, kind: 'unknown', ref: ref.raw });
              return wire ? 'x' : null;
            }
            const kind = wire ? 'unknown' : (kinds.get(ref.raw) ?? 'unknown');
            holes.push({ path: p, kind, ref: ref.raw });
            return wire ? 'x' : SAMPLE[kind];
          },
          text: (ref, p) => {
            if (ref.kind === 'env' && envValue(ref, ctx.env) !== undefined) return envValue(ref, ctx.env)!;
            holes.push({ path: p, kind: wire || ref.kind === 'env' ? 'unknown' : 'string', ref: ref.raw });
            return 'x';
          },
        }) as Record<string, unknown>;
        // Path and query values travel as text, as the server receives them.
        const input = wire ? Object.fromEntries(Object.entries(filled).map(([k, v]) => [k, String(v)])) : filled;
        const r = schema.safeParse(input);
        if (r.success) return;
        for (const issue of r.error.issues) {
          const ip = issue.path as Path;
          const hole = holes.find((h) => h.path.length <= ip.length && h.path.every((seg, i) => seg === ip[i]));
          // Inside a placeholder only a wrong JSON type is certain; lengths, formats and members wait for the real value.
          if (hole && !(hole.kind !== 'unknown' && issue.code === 'invalid_type' && hole.path.length === ip.length))
            continue;
          if (issue.code === 'unrecognized_keys') {
            for (const key of issue.keys)
              problem(
                [...base, ...ip, key],
                `unknown member \`${key}\`: not part of ${op!.operationId}'s ${base[0] === 'body' ? 'body' : 'parameters'}.`,
              );
            continue;
          }
          if (issue.code === 'invalid_type') {
            // zod 4 leaves the received value out of its issues, so say it here.
            const got = hole ? undefined : valueAt(input, ip.map(String));
            const takes = expectedName(issue.expected);
            if (hole)
              problem(
                [...base, ...ip],
                `\`${hole.ref}\` gives ${KIND_NAME[hole.kind]}, but this field takes ${takes}.`,
              );
            else
              problem(
                [...base, ...ip],
                got === undefined ? 'Required.' : `Must be ${takes}; received ${describe(got)}.`,
              );
            continue;
          }
          const [msg] = Object.values(fieldErrors([issue]))[0] ?? [issue.message];
          problem([...base, ...ip], msg);
        }
      };
      // Missing path parameters were reported above with a better message than "Required".
      check(pathParamsSchema(op), path, ['params'], true);
      check(op.query, query, ['params'], true);
      if (step.idempotencyKey !== undefined && op.idempotent) {
        const t = parseTemplate(step.idempotencyKey);
        if (t.parts!.every((x) => typeof x === 'string' || (x.kind === 'env' && envValue(x, ctx.env) !== undefined))) {
          const key = t
            .parts!.map((x) => (typeof x === 'string' ? x : envValue(x as Extract<Ref, { kind: 'env' }>, ctx.env)))
            .join('');
          if (!/^[\x21-\x7e]{8,120}$/.test(key))
            problem(
              ['idempotency_key'],
              `must be 8 to 120 visible ASCII characters (no spaces); received ${JSON.stringify(key)}.`,
            );
        }
      }
      if (op.body) {
        const body = step.body ?? {};
        const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
        const isOneRef =
          typeof body === 'string' && !!parseTemplate(body).parts && wholeRef(parseTemplate(body).parts!) !== null;
        if (isObject || isOneRef) check(op.body, body, ['body'], false);
        else problem(['body'], `\`body\` must be a JSON object; received ${JSON.stringify(body)}.`);
      }
    }

    if (problems.length === before) {
      planned.push({
        file: step.file,
        index: step.index,
        seq,
        name: step.name,
        operation: op,
        path,
        query,
        body: op.body ? step.body : undefined,
        idempotencyKey: step.idempotencyKey,
        needs: [...needs],
      });
    }
  });
  // Report in reading order: file by file, step by step (duplicates are found before the rest).
  const order = new Map(files.map((f, i) => [f.file, i]));
  const sorted = problems
    .map((p, i) => ({ p, i }))
    .sort(
      (a, b) =>
        (order.get(a.p.file) ?? 0) - (order.get(b.p.file) ?? 0) || (a.p.index ?? -1) - (b.p.index ?? -1) || a.i - b.i,
    )
    .map((x) => x.p);
  return { steps: sorted.length ? [] : planned, problems: sorted };
}
