import { z } from 'zod';
import { ListMeta, Meta } from '../contract/common.js';
import { getOperation, operationList, type AnyOperation } from '../contract/operations.js';
import type { RawStep, SeedProblem } from './parse.js';
import { envValue, jsonPath, parseTemplate, strings, type Json, type StepRef } from './refs.js';
import { lookupPath, type Kind } from './shape.js';
import { suggest } from './suggest.js';
import { checkValues } from './values.js';

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
type Params = Record<string, string | number | boolean>;
type Named = Map<string, { step: RawStep; seq: number; op?: AnyOperation }>;

/** What one step's checks share: the run's context, the named steps, and where its problems go. */
interface StepCheck {
  step: RawStep;
  seq: number;
  ctx: PlanContext;
  byName: Named;
  problems: SeedProblem[];
  problem(rel: Path, message: string): void;
}

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

// Built once per operation: a long file would otherwise build the same schema once per step.
const envelopes = new WeakMap<AnyOperation, z.ZodType>();
const pathParamNames = (op: AnyOperation) => [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
const queryParamNames = (op: AnyOperation) => Object.keys(op.query.shape);
const list = (names: string[]) => (names.length ? names.map((n) => `\`${n}\``).join(', ') : 'none');
const stepPlace = (target: RawStep, from: RawStep) =>
  target.file === from.file ? `steps[${target.index}]` : `steps[${target.index}] of ${target.file}`;

/** The named steps of the run, first use of each name; a name used twice is a problem. */
function namedSteps(all: RawStep[], problems: SeedProblem[]): Named {
  const byName: Named = new Map();
  all.forEach((step, seq) => {
    if (step.name === undefined) return;
    const first = byName.get(step.name);
    if (!first) {
      byName.set(step.name, { step, seq, op: step.operation ? getOperation(step.operation) : undefined });
      return;
    }
    problems.push({
      file: step.file,
      step: step.name,
      index: step.index,
      path: jsonPath(['steps', step.index, 'name']),
      message: `step name \`${step.name}\` is already used by ${stepPlace(first.step, step)}; names must be unique across every file of a run.`,
    });
  });
  return byName;
}

/** The step's operation, when it names one a seed file can call. */
function operationOf(c: StepCheck): AnyOperation | undefined {
  const { step } = c;
  if (step.operation === undefined) return undefined;
  const op = getOperation(step.operation);
  if (!op) {
    const near = suggest(
      step.operation,
      operationList.map((o) => o.operationId),
    );
    c.problem(
      ['operation'],
      `unknown operation \`${step.operation}\`${near ? `; did you mean \`${near}\`?` : ''} (\`wcm openapi\` lists every operationId).`,
    );
    return undefined;
  }
  if (op.access !== 'signature') return op;
  c.problem(
    ['operation'],
    `\`${op.operationId}\` needs a payment processor's signature, which a seed file cannot make; use \`wcm payments simulate\`.`,
  );
  return undefined;
}

/** Checks a `${step:…}` reference: an earlier step of the run, and a path its response envelope has. */
function checkStepRef(c: StepCheck, ref: StepRef, at: Path, found: { needs: Set<string>; kinds: Map<string, Kind> }) {
  const target = c.byName.get(ref.step);
  if (!target) {
    const near = suggest(ref.step, c.byName.keys());
    c.problem(
      at,
      `\`${ref.raw}\` refers to step \`${ref.step}\`, which is not in this run${near ? `; did you mean \`${near}\`?` : '.'}`,
    );
  } else if (target.seq === c.seq) {
    c.problem(at, `\`${ref.raw}\` refers to this step itself; a step can only use the results of steps before it.`);
  } else if (target.seq > c.seq) {
    c.problem(
      at,
      `\`${ref.raw}\` refers to step \`${ref.step}\`, which runs later (${stepPlace(target.step, c.step)}); a step can only use the results of steps before it.`,
    );
  } else {
    found.needs.add(ref.step);
    if (!target.op) return;
    const shape = lookupPath(envelopeSchema(target.op), ref.path);
    if (!shape.ok)
      c.problem(
        at,
        `\`${ref.raw}\`: ${shape.reason} in ${target.op.operationId}'s response envelope ({"data", "meta"}).`,
      );
    else
      found.kinds.set(ref.raw, ref.default === undefined ? shape.kind : shape.kind === 'string' ? 'string' : 'unknown');
  }
}

/** Parses every string of the step; checks each reference against the environment and the steps before it. */
function checkReferences(c: StepCheck) {
  const found = { needs: new Set<string>(), kinds: new Map<string, Kind>(), templatesOk: true };
  const sources: Array<[Path, unknown]> = [
    [['params'], c.step.params],
    [['body'], c.step.body],
    [['idempotency_key'], c.step.idempotencyKey],
  ];
  for (const [base, value] of sources) {
    for (const s of strings(value, base)) {
      const t = parseTemplate(s.value);
      if (t.error !== undefined) {
        c.problem(s.path, t.error);
        found.templatesOk = false;
        continue;
      }
      for (const ref of t.parts) {
        if (typeof ref === 'string') continue;
        if (ref.kind === 'step') checkStepRef(c, ref, s.path, found);
        else if (envValue(ref, c.ctx.env) === undefined)
          c.problem(
            s.path,
            `environment variable \`${ref.name}\` is not set and \`${ref.raw}\` has no default; set it, or write \`\${env:${ref.name}|default}\`.`,
          );
      }
    }
  }
  return found;
}

/** Sorts `params` into path and query parameters of the operation; fills `workspace` from the target. */
function splitParams(c: StepCheck, op: AnyOperation): { path: Params; query: Params } {
  const pathNames = pathParamNames(op);
  const queryNames = queryParamNames(op);
  const path: Params = {};
  const query: Params = {};
  for (const [k, v] of Object.entries(c.step.params)) {
    if (pathNames.includes(k)) path[k] = v;
    else if (queryNames.includes(k)) query[k] = v;
    else
      c.problem(
        ['params', k],
        `\`${op.operationId}\` has no parameter \`${k}\` (path: ${list(pathNames)}; query: ${list(queryNames)}).`,
      );
  }
  for (const name of pathNames) {
    if (path[name] !== undefined) continue;
    // Given but malformed (the parser said so): not missing as well.
    const given = jsonPath(['steps', c.step.index, 'params', name]);
    if (c.problems.some((p) => p.file === c.step.file && p.path === given)) continue;
    if (name === 'workspace' && c.ctx.workspace) path.workspace = c.ctx.workspace;
    else if (name === 'workspace')
      c.problem(
        ['params'],
        `\`params.workspace\` is missing and no workspace is chosen: pass \`--workspace ID\`, set WCM_WORKSPACE, or give \`params.workspace\`.`,
      );
    else c.problem(['params'], `missing path parameter \`${name}\` for ${op.operationId} (${op.method} ${op.path}).`);
  }
  return { path, query };
}

/** Checks one step; returns what the runner sends when the step has no problem. */
function planStep(c: StepCheck): PlannedStep | undefined {
  const { step } = c;
  const before = c.problems.length;
  const op = operationOf(c);
  const refs = checkReferences(c);
  if (!op || step.name === undefined) return undefined;
  const params = splitParams(c, op);
  if (step.body !== undefined && !op.body) c.problem(['body'], `\`${op.operationId}\` takes no body; remove \`body\`.`);
  if (step.idempotencyKey !== undefined && !op.idempotent)
    c.problem(
      ['idempotency_key'],
      `\`${op.operationId}\` takes no Idempotency-Key (only public operations do); remove \`idempotency_key\`.`,
    );
  if (refs.templatesOk) checkValues(op, { step, env: c.ctx.env, ...params, kinds: refs.kinds }, c.problem);
  if (c.problems.length !== before) return undefined;
  return {
    file: step.file,
    index: step.index,
    seq: c.seq,
    name: step.name,
    operation: op,
    ...params,
    body: op.body ? step.body : undefined,
    idempotencyKey: step.idempotencyKey,
    needs: [...refs.needs],
  };
}

/** Problems in reading order: file by file, step by step (duplicates are found before the rest). */
function readingOrder(files: Array<{ file: string }>, problems: SeedProblem[]): SeedProblem[] {
  const order = new Map(files.map((f, i) => [f.file, i]));
  return problems
    .map((p, i) => ({ p, i }))
    .sort(
      (a, b) =>
        (order.get(a.p.file) ?? 0) - (order.get(b.p.file) ?? 0) || (a.p.index ?? -1) - (b.p.index ?? -1) || a.i - b.i,
    )
    .map((x) => x.p);
}

/**
 * Checks every step of every file before anything is sent: known operation, path parameters
 * present, query and body valid for the operation's schemas, references that resolve to an
 * earlier step's response or to the environment, step names unique across all files.
 */
export function buildPlan(
  files: Array<{ file: string; steps: RawStep[]; problems?: SeedProblem[] }>,
  ctx: PlanContext,
): Plan {
  const problems: SeedProblem[] = files.flatMap((f) => f.problems ?? []);
  const all = files.flatMap((f) => f.steps);
  const byName = namedSteps(all, problems);
  const planned: PlannedStep[] = [];
  all.forEach((step, seq) => {
    const problem = (rel: Path, message: string) =>
      problems.push({
        file: step.file,
        step: step.name,
        index: step.index,
        path: jsonPath(['steps', step.index, ...rel]),
        message,
      });
    const p = planStep({ step, seq, ctx, byName, problems, problem });
    if (p) planned.push(p);
  });
  const sorted = readingOrder(files, problems);
  return { steps: sorted.length ? [] : planned, problems: sorted };
}
