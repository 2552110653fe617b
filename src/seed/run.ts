import type { OperationId } from '../contract/table.js';
import type { ApiClient, Envelope } from '../client/client.js';
import { EXIT, exitCodeOf, isReported } from '../cli/errors.js';
import { ApiError, type ProblemJson } from '../client/errors.js';
import { asText, envValue, substitute, valueAt, type Ref } from './refs.js';
import type { PlannedStep } from './validate.js';

/** What happened to one step. */
export interface StepOutcome {
  step: PlannedStep;
  state: 'ok' | 'failed' | 'skipped';
  /** HTTP status; null when nothing was sent (a reference found nothing, the network failed, or skipped). */
  status: number | null;
  /** The response envelope on success. */
  response?: Envelope;
  /** The problem on failure (the server's problem+json, or one made here). */
  problem?: ProblemJson;
  /** Why a step was not run (continue-on-error after a failure it depends on). */
  reason?: string;
  exitCode?: number;
}

export interface RunResult {
  outcomes: StepOutcome[];
  /** The first failure, which sets the exit code. */
  failure?: StepOutcome;
  /** Steps that did not run because the run stopped at a failure or was interrupted. */
  notRun: PlannedStep[];
  /** Set when `signal` stopped the run (between steps: the one in flight finished). */
  interrupted?: boolean;
}

export interface RunOptions {
  client: Pick<ApiClient, 'call'>;
  env: NodeJS.ProcessEnv;
  continueOnError?: boolean;
  /** Stops the run before the next step (Ctrl-C, a cancelled CI job). */
  signal?: AbortSignal;
  onStart?(step: PlannedStep, n: number, total: number): void;
  onDone?(outcome: StepOutcome, n: number, total: number): void;
}

/** A reference that found nothing in an earlier response: the fixture asked for something that is not there. */
class MissingValue extends Error {}

/** The request a step makes, with every reference replaced by its value. */
export function resolveStep(step: PlannedStep, results: ReadonlyMap<string, Envelope>, env: NodeJS.ProcessEnv) {
  const lookup = (ref: Ref): unknown => {
    if (ref.kind === 'env') return envValue(ref, env) ?? '';
    const found = valueAt(results.get(ref.step), ref.path);
    if (found !== undefined) return found;
    if (ref.default !== undefined) return ref.default;
    throw new MissingValue(
      `\`${ref.raw}\` found nothing: \`${ref.path.join('.')}\` is not in step \`${ref.step}\`'s response. Give a default (\`\${${ref.step}:${ref.path.join('.')}|…}\`) or fix the path.`,
    );
  };
  const wire =
    (name: string) =>
    (v: unknown): string => {
      if (v === null || typeof v === 'object')
        throw new MissingValue(
          `parameter \`${name}\` must be a string, number or boolean; a reference gave ${JSON.stringify(v).slice(0, 60)}.`,
        );
      return String(v);
    };
  const resolver = { whole: lookup, text: (ref: Ref) => asText(lookup(ref)) };
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(step.path)) params[k] = wire(k)(substitute(v, resolver));
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(step.query)) query[k] = wire(k)(substitute(v, resolver));
  const body = step.operation.body ? substitute(step.body ?? undefined, resolver) : undefined;
  const idempotencyKey =
    step.idempotencyKey !== undefined ? wire('idempotency_key')(substitute(step.idempotencyKey, resolver)) : undefined;
  return { params, query, body, idempotencyKey };
}

/**
 * Runs planned steps in order through the shared client (its retries, auth and errors), feeding each
 * response to later references. Stops at the first failure unless `continueOnError`; then steps that
 * use a failed step's result are skipped, and the rest still run.
 */
export async function runPlan(steps: PlannedStep[], opts: RunOptions): Promise<RunResult> {
  const results = new Map<string, Envelope>();
  const broken = new Map<string, string>();
  const outcomes: StepOutcome[] = [];
  let failure: StepOutcome | undefined;
  const total = steps.length;
  for (let i = 0; i < total; i++) {
    const step = steps[i];
    if (failure && !opts.continueOnError) return { outcomes, failure, notRun: steps.slice(i) };
    if (opts.signal?.aborted) return { outcomes, failure, notRun: steps.slice(i), interrupted: true };
    opts.onStart?.(step, i + 1, total);
    let outcome: StepOutcome;
    const blocker = step.needs.find((n) => broken.has(n));
    if (blocker) {
      outcome = {
        step,
        state: 'skipped',
        status: null,
        reason: `uses the result of step \`${blocker}\`, which ${broken.get(blocker)}`,
      };
      broken.set(step.name, 'was skipped');
    } else {
      try {
        const req = resolveStep(step, results, opts.env);
        const res = await opts.client.call(step.operation.operationId as OperationId, req);
        results.set(step.name, res.body);
        outcome = { step, state: 'ok', status: res.status, response: res.body };
      } catch (err) {
        outcome = failed(step, err);
        broken.set(step.name, 'failed');
        failure ??= outcome;
      }
    }
    outcomes.push(outcome);
    opts.onDone?.(outcome, i + 1, total);
  }
  return { outcomes, failure, notRun: [] };
}

function failed(step: PlannedStep, err: unknown): StepOutcome {
  if (err instanceof ApiError)
    return { step, state: 'failed', status: err.status, problem: err.problem, exitCode: exitCodeOf(err) };
  if (err instanceof MissingValue) {
    return {
      step,
      state: 'failed',
      status: null,
      problem: { title: 'Unresolved reference', detail: err.message },
      exitCode: EXIT.usage,
    };
  }
  if (isReported(err)) {
    return {
      step,
      state: 'failed',
      status: null,
      problem: { title: 'Request failed', detail: err.message, resolution: err.hint },
      exitCode: exitCodeOf(err),
    };
  }
  throw err;
}

/** The ids a successful write returned: `data.id`, or the `id` of each member (`order.id`, …). */
export function createdIds(data: unknown): Array<[string, string]> {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return [];
  const d = data as Record<string, unknown>;
  if (typeof d.id === 'string') return [['id', d.id]];
  const out: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(d)) {
    if (v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string')
      out.push([`${k}.id`, (v as { id: string }).id]);
  }
  return out;
}

/** Steps that changed something on the server (not reads), with the ids they returned. */
export function changes(
  outcomes: StepOutcome[],
): Array<{ name: string; operation: string; ids: Array<[string, string]> }> {
  return outcomes
    .filter((o) => o.state === 'ok' && o.step.operation.method !== 'GET')
    .map((o) => ({ name: o.step.name, operation: o.step.operation.operationId, ids: createdIds(o.response?.data) }));
}

/**
 * The document `--output` writes (and `--json` prints): every step that ran, in order, keyed by
 * name, so a CI job reads ids with `jq -r .steps.faq.data.id`.
 */
export function resultDocument(run: RunResult, target: { baseUrl: string; workspace?: string }) {
  const steps: Record<string, unknown> = {};
  for (const o of run.outcomes) {
    const base = { file: o.step.file, operation: o.step.operation.operationId, status: o.status };
    if (o.state === 'ok')
      steps[o.step.name] = { ...base, ok: true, data: o.response?.data ?? null, meta: o.response?.meta ?? null };
    else if (o.state === 'failed') steps[o.step.name] = { ...base, ok: false, error: o.problem };
    else steps[o.step.name] = { ...base, ok: false, skipped: o.reason };
  }
  return {
    version: 1,
    ok: !run.failure && !run.interrupted,
    ...(run.interrupted ? { interrupted: true } : {}),
    target: { base_url: target.baseUrl, workspace: target.workspace ?? null },
    steps,
    not_run: run.notRun.map((s) => s.name),
  };
}
