import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { IO } from '../cli/io.js';
import { printJson, printRows, type Style } from '../cli/output.js';
import type { SeedProblem } from './parse.js';
import { asText, envValue, substitute } from './refs.js';
import { changes, createdIds, type RunResult, type StepOutcome } from './run.js';
import type { PlannedStep } from './validate.js';

/** Written whole or not at all, so a CI step never reads half a file. */
export async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(value, null, 2) + '\n', { mode: 0o600 });
  await rename(tmp, file);
}

/** Pre-flight problems on stderr: one line each, file › step › JSON path: message. */
export function printProblems(io: IO, s: Style, problems: SeedProblem[], json: boolean): void {
  const detail = `${problems.length} problem${problems.length === 1 ? '' : 's'} in the seed files; nothing was sent.`;
  if (json) {
    io.stderr.write(JSON.stringify({ title: 'Invalid seed files', detail, problems }) + '\n');
    return;
  }
  io.stderr.write(`${s.red('Error:')} ${detail}\n`);
  for (const p of problems)
    io.stderr.write(`  ${p.file}${p.step ? ` › ${p.step}` : ''} › ${s.yellow(p.path)}: ${p.message}\n`);
}

/** `--dry-run`: the plan, with environment references resolved and step references as written. */
export async function printPlan(io: IO, steps: PlannedStep[], env: NodeJS.ProcessEnv, json: boolean): Promise<void> {
  const show = (v: unknown) =>
    substitute(v, {
      whole: (ref) => (ref.kind === 'env' ? envValue(ref, env) : ref.raw),
      text: (ref) => (ref.kind === 'env' ? (envValue(ref, env) ?? '') : ref.raw),
    });
  const rows = steps.map((st) => {
    const params = show(st.path) as Record<string, unknown>;
    const query = show(st.query) as Record<string, unknown>;
    const qs = Object.entries(query)
      .map(([k, v]) => `${k}=${asText(v)}`)
      .join('&');
    return {
      file: st.file,
      step: st.name,
      operation: st.operation.operationId,
      method: st.operation.method,
      path: st.operation.path.replace(/\{(\w+)\}/g, (_, n: string) => asText(params[n])) + (qs ? `?${qs}` : ''),
      ...(st.body !== undefined ? { body: show(st.body) } : {}),
      needs: st.needs,
    };
  });
  if (json) {
    printJson(io.stdout, { ok: true, dry_run: true, plan: rows });
    return;
  }
  await printRows(io, rows, [
    { header: 'STEP', value: (r) => r.step },
    { header: 'OPERATION', value: (r) => r.operation },
    { header: 'METHOD', value: (r) => r.method },
    { header: 'PATH', value: (r) => r.path },
  ]);
  if (io.isStderrTTY)
    io.stderr.write(`${steps.length} step${steps.length === 1 ? '' : 's'} valid; nothing was sent (--dry-run).\n`);
}

const idsText = (ids: Array<[string, string]>) => ids.map(([k, v]) => (k === 'id' ? v : `${k}=${v}`)).join(' ');

function resultCell(o: StepOutcome): string {
  if (o.state === 'skipped') return o.reason ?? '';
  if (o.state === 'failed') return [o.problem?.code, o.problem?.detail ?? o.problem?.title].filter(Boolean).join(': ');
  const data = o.response?.data;
  if (Array.isArray(data)) return `${data.length} item${data.length === 1 ? '' : 's'}`;
  return idsText(createdIds(data));
}

const statusText = (o: StepOutcome) =>
  o.state === 'skipped' ? 'skipped' : o.status === null ? 'error' : String(o.status);

/** stdout: one row per step that ran (a table on a terminal, tab-separated when piped). */
export async function printOutcomes(io: IO, outcomes: StepOutcome[]): Promise<void> {
  await printRows(io, outcomes, [
    { header: 'STEP', value: (o) => o.step.name },
    { header: 'OPERATION', value: (o) => o.step.operation.operationId },
    { header: 'STATUS', value: statusText, pretty: (o, st) => (o.state === 'ok' ? st.green : st.red)(statusText(o)) },
    { header: 'RESULT', value: resultCell, maxWidth: 60 },
  ]);
}

/** A terminal's step counter on stderr: one line rewritten in place; failures stay on screen. */
export function progressLine(io: IO, s: Style) {
  const clear = '\r\x1b[2K';
  return {
    start(step: PlannedStep, n: number, total: number) {
      io.stderr.write(`${clear}[${n}/${total}] ${step.name} ${s.dim(step.operation.operationId)} …`);
    },
    done(o: StepOutcome, n: number, total: number) {
      const mark = o.state === 'ok' ? s.green('✓') : o.state === 'skipped' ? s.yellow('–') : s.red('✗');
      io.stderr.write(
        `${clear}[${n}/${total}] ${o.step.name} ${s.dim(o.step.operation.operationId)} ${mark}${o.status ? ` ${o.status}` : ''}`,
      );
      if (o.state !== 'ok')
        io.stderr.write(`${o.problem?.code ? ` ${o.problem.code}` : ''}${o.reason ? ` skipped: ${o.reason}` : ''}\n`);
    },
    clear() {
      io.stderr.write(clear);
    },
  };
}

/** step name → id (or {member.id: id} when a write returned several). */
function createdMap(run: RunResult): Record<string, unknown> {
  return Object.fromEntries(
    changes(run.outcomes).map((d) => [d.name, d.ids.length === 1 ? d.ids[0][1] : Object.fromEntries(d.ids)]),
  );
}

/** What a stopped run leaves behind: the writes that happened (nothing is rolled back) and the steps never run. */
function printLeftBehind(io: IO, run: RunResult, when: string): void {
  const e = io.stderr;
  const done = changes(run.outcomes);
  if (done.length) {
    e.write('Already created or changed (nothing is rolled back):\n');
    const w = Math.max(...done.map((d) => d.name.length));
    for (const d of done) e.write(`  ${d.name.padEnd(w)}  ${d.operation}  ${idsText(d.ids) || '(no id)'}\n`);
  } else e.write(`Nothing was created ${when}.\n`);
  const notRun = run.notRun.map((st) => st.name);
  if (notRun.length)
    e.write(
      `Not run: ${notRun.slice(0, 10).join(', ')}${notRun.length > 10 ? `, … (${notRun.length} steps in all)` : ''}\n`,
    );
}

/**
 * stderr after a run that stopped: the failing step (file, step, operation, the problem and its
 * field errors) or the interruption, then what was already created and what never ran.
 */
export function printStop(
  io: IO,
  s: Style,
  run: RunResult,
  opts: { json: boolean; total: number; signal?: string; output?: string },
): void {
  const fail = run.failure;
  const e = io.stderr;
  const notRun = run.notRun.map((st) => st.name);
  if (!fail) {
    const detail = `Stopped by ${opts.signal} after ${run.outcomes.length} of ${opts.total} steps`;
    if (opts.json)
      e.write(
        JSON.stringify({ title: 'Interrupted', detail: `${detail}.`, created: createdMap(run), not_run: notRun }) +
          '\n',
      );
    else {
      e.write(
        `${s.red('Interrupted')} by ${opts.signal} after ${run.outcomes.length} of ${opts.total} steps (the step in flight finished).\n`,
      );
      printLeftBehind(io, run, 'before the interruption');
    }
    return;
  }
  const step = fail.step;
  const p = fail.problem ?? {};
  if (opts.json) {
    e.write(
      JSON.stringify({
        ...p,
        status: fail.status,
        step: step.name,
        file: step.file,
        operation: step.operation.operationId,
        created: createdMap(run),
        not_run: notRun,
      }) + '\n',
    );
    return;
  }
  e.write(
    `${s.red('Error:')} step ${s.bold(step.name)} (${step.file}, steps[${step.index}]) failed: ${step.operation.operationId}${fail.status ? ` → ${fail.status}` : ''}${p.code ? ` ${p.code}` : ''}\n`,
  );
  if (p.title) e.write(`  ${p.title}\n`);
  if (p.detail && p.detail !== p.title) e.write(`  ${p.detail}\n`);
  for (const [field, msgs] of Object.entries(p.errors ?? {}))
    for (const m of msgs) e.write(`  ${s.yellow(`• ${field}`)}: ${m}\n`);
  if (p.resolution) e.write(`  ${s.cyan('→')} ${p.resolution}\n`);
  if (p.request_id) e.write(s.dim(`  request id: ${p.request_id}\n`));
  const others = run.outcomes.filter((o) => o.state !== 'ok').length - 1;
  if (others > 0)
    e.write(
      `${others} more step${others > 1 ? 's' : ''} failed or skipped after it (see the step rows on stdout${opts.output ? ` and ${opts.output}` : ''}).\n`,
    );
  printLeftBehind(io, run, 'before the failure');
}

/** The closing line on a terminal after a run where every step succeeded. */
export function printSummary(io: IO, s: Style, run: RunResult, files: number, ms: number, output?: string): void {
  const n = run.outcomes.length;
  io.stderr.write(
    `${s.green('✓')} ${n} step${n === 1 ? '' : 's'} from ${files} file${files === 1 ? '' : 's'} in ${(ms / 1000).toFixed(1)} s ` +
      `(${changes(run.outcomes).length} created or changed)${output ? `; results in ${output}` : ''}\n`,
  );
}
