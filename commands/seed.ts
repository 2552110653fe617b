import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defineCommand } from '../src/cli/command.js';
import { EXIT } from '../src/cli/errors.js';
import type { Factory } from '../src/cli/factory.js';
import { errStyle, printJson, printRows, type Column } from '../src/cli/output.js';

interface SeedOptions {
  dryRun?: boolean;
  output?: string;
  continueOnError?: boolean;
}

export default defineCommand<SeedOptions>({
  path: ['seed'],
  summary: 'Run API-step fixtures against the target: a CI job\'s set-up in one command',
  description: `Each FILE holds {"version": 1, "steps": [{"name", "operation", "params", "body"}]} (FIXTURES.md §2).
Files run in the order given and share one namespace of step names. In any string:
  \${step:data.id}     a value from an earlier step's response envelope
  \${env:NAME}         an environment variable
  \${env:NAME|text}    … with a default (also \${step:path|text})
A string that is exactly one reference keeps the value's JSON type. Every step is validated
before anything is sent. stdout: one row per step (step, operation, status, result), or with
--json the same document --output writes. On a terminal, progress goes to stderr.`,
  examples: [
    'wcm seed fixtures/ci-seed.steps.json --output seeded.json && jq -r .steps.faq.data.id seeded.json',
    'wcm seed base.steps.json extra.steps.json --dry-run',
  ],
  args: [{ name: 'file', description: 'API-step fixture files, run in order', required: true, variadic: true }],
  options: [
    { flags: '--dry-run', description: 'resolve and validate every step and print the plan; send nothing' },
    { flags: '--output <file>', description: 'write every step\'s result as JSON (also when a step fails)' },
    { flags: '--continue-on-error', description: 'keep going after a failed step (steps using its result are skipped)' },
  ],
  async run(opts, f) {
    const { parseSeedFile } = await import('../src/seed/parse.js');
    const { buildPlan } = await import('../src/seed/validate.js');
    const files = await Promise.all(
      opts.args.map(async (file) => {
        let text: string;
        try {
          text = await readFile(path.resolve(f.cwd, file), 'utf8');
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
          return { file, steps: [], problems: [{ file, path: '$', message: `cannot be read (${code}).` }] };
        }
        return { file, ...parseSeedFile(text, file) };
      }),
    );
    const target = await f.target();
    const plan = buildPlan(files, { env: f.env, workspace: target.workspace });
    const problems = plan.problems;
    const output = opts.output ? path.resolve(f.cwd, opts.output) : undefined;
    const s = await errStyle(f.io);

    if (problems.length) {
      if (output) await writeJson(output, { version: 1, ok: false, target: { base_url: target.baseUrl, workspace: target.workspace ?? null }, steps: {}, not_run: [], problems });
      const detail = `${problems.length} problem${problems.length === 1 ? '' : 's'} in the seed files; nothing was sent.`;
      if (f.globals.json) {
        f.io.stderr.write(JSON.stringify({ title: 'Invalid seed files', detail, problems }) + '\n');
      } else {
        f.io.stderr.write(`${s.red('Error:')} ${detail}\n`);
        for (const p of problems) f.io.stderr.write(`  ${p.file}${p.step ? ` › ${p.step}` : ''} › ${s.yellow(p.path)}: ${p.message}\n`);
      }
      return EXIT.usage;
    }

    if (opts.dryRun) return printPlan(f, plan.steps);

    const { runPlan, resultDocument, changes, createdIds } = await import('../src/seed/run.js');
    const client = await f.client({ requireToken: plan.steps.some((st) => st.operation.access !== 'public') });
    // With --json, stderr is for one JSON problem; progress text would get in its way.
    const progress = f.io.isStderrTTY && !f.globals.json;
    const clear = '\r\x1b[2K';
    const started = Date.now();
    // Ctrl-C or a cancelled CI job: finish the step in flight, then stop and report as on a failure.
    const stop = new AbortController();
    let caught: NodeJS.Signals | undefined;
    const onSignal = (sig: NodeJS.Signals) => {
      caught = sig;
      stop.abort();
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const run = await runPlan(plan.steps, {
      client,
      env: f.env,
      signal: stop.signal,
      continueOnError: opts.continueOnError,
      onStart: (st, n, total) => {
        if (progress) f.io.stderr.write(`${clear}[${n}/${total}] ${st.name} ${s.dim(st.operation.operationId)} …`);
      },
      onDone: (o, n, total) => {
        if (!progress) return;
        const mark = o.state === 'ok' ? s.green('✓') : o.state === 'skipped' ? s.yellow('–') : s.red('✗');
        f.io.stderr.write(`${clear}[${n}/${total}] ${o.step.name} ${s.dim(o.step.operation.operationId)} ${mark}${o.status ? ` ${o.status}` : ''}`);
        // Failures stay on screen; successes are overwritten by the next step.
        if (o.state !== 'ok') f.io.stderr.write(`${o.problem?.code ? ` ${o.problem.code}` : ''}${o.reason ? ` skipped: ${o.reason}` : ''}\n`);
      },
    }).finally(() => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    });
    if (progress) f.io.stderr.write(clear);

    const doc = resultDocument(run, { baseUrl: client.baseUrl, workspace: target.workspace });
    if (output) await writeJson(output, doc);

    if (f.globals.json) printJson(f.io.stdout, doc);
    else {
      const columns: Column<(typeof run.outcomes)[number]>[] = [
        { header: 'STEP', value: (o) => o.step.name },
        { header: 'OPERATION', value: (o) => o.step.operation.operationId },
        { header: 'STATUS', value: (o) => (o.state === 'skipped' ? 'skipped' : o.status === null ? 'error' : String(o.status)), pretty: (o, st) => (o.state === 'ok' ? st.green(String(o.status)) : st.red(o.status === null ? o.state === 'skipped' ? 'skipped' : 'error' : String(o.status))) },
        { header: 'RESULT', value: (o) => resultCell(o, createdIds), maxWidth: 60 },
      ];
      await printRows(f.io, run.outcomes, columns);
    }

    const failed = run.outcomes.filter((o) => o.state !== 'ok');
    if (!run.failure && !run.interrupted) {
      if (progress) {
        const n = changes(run.outcomes).length;
        f.io.stderr.write(`${s.green('✓')} ${run.outcomes.length} step${run.outcomes.length === 1 ? '' : 's'} from ${files.length} file${files.length === 1 ? '' : 's'} in ${((Date.now() - started) / 1000).toFixed(1)} s (${n} created or changed)${output ? `; results in ${opts.output}` : ''}\n`);
      }
      return EXIT.ok;
    }

    const done = changes(run.outcomes);
    const fail = run.failure;
    // 128 + signal number, as shells report a command stopped by a signal.
    const interruptedCode = caught === 'SIGINT' ? 130 : 143;
    if (!fail) {
      const e = f.io.stderr;
      if (f.globals.json) {
        e.write(JSON.stringify({ title: 'Interrupted', detail: `Stopped by ${caught} after ${run.outcomes.length} of ${plan.steps.length} steps.`, created: createdMap(done), not_run: run.notRun.map((st) => st.name) }) + '\n');
        return interruptedCode;
      }
      e.write(`${s.red('Interrupted')} by ${caught} after ${run.outcomes.length} of ${plan.steps.length} steps (the step in flight finished).\n`);
      writeDone(e, done, run.notRun.map((st) => st.name), 'before the interruption');
      return interruptedCode;
    }
    if (f.globals.json) {
      f.io.stderr.write(JSON.stringify({
        ...fail.problem, status: fail.status, step: fail.step.name, file: fail.step.file, operation: fail.step.operation.operationId,
        created: createdMap(done),
        not_run: run.notRun.map((st) => st.name),
      }) + '\n');
      return fail.exitCode ?? EXIT.failure;
    }
    const p = fail.problem ?? {};
    const e = f.io.stderr;
    e.write(`${s.red('Error:')} step ${s.bold(fail.step.name)} (${fail.step.file}, steps[${fail.step.index}]) failed: ${fail.step.operation.operationId}${fail.status ? ` → ${fail.status}` : ''}${p.code ? ` ${p.code}` : ''}\n`);
    if (p.title) e.write(`  ${p.title}\n`);
    if (p.detail && p.detail !== p.title) e.write(`  ${p.detail}\n`);
    for (const [field, msgs] of Object.entries(p.errors ?? {})) for (const m of msgs) e.write(`  ${s.yellow(`• ${field}`)}: ${m}\n`);
    if (p.resolution) e.write(`  ${s.cyan('→')} ${p.resolution}\n`);
    if (p.request_id) e.write(s.dim(`  request id: ${p.request_id}\n`));
    if (failed.length > 1) e.write(`${failed.length - 1} more step${failed.length > 2 ? 's' : ''} failed or skipped after it (see the step rows on stdout${output ? ` and ${opts.output}` : ''}).\n`);
    writeDone(e, done, run.notRun.map((st) => st.name), 'before the failure');
    return fail.exitCode ?? EXIT.failure;
  },
});

type Done = Array<{ name: string; operation: string; ids: Array<[string, string]> }>;

/** step name → id (or {member.id: id} when a write returned several). */
function createdMap(done: Done): Record<string, unknown> {
  return Object.fromEntries(done.map((d) => [d.name, d.ids.length === 1 ? d.ids[0][1] : Object.fromEntries(d.ids)]));
}

/** What a stopped run leaves behind: the writes that happened (nothing is rolled back) and the steps never run. */
function writeDone(e: { write(s: string): unknown }, done: Done, notRun: string[], when: string): void {
  if (done.length) {
    e.write(`Already created or changed (nothing is rolled back):\n`);
    const w = Math.max(...done.map((d) => d.name.length));
    for (const d of done) e.write(`  ${d.name.padEnd(w)}  ${d.operation}  ${d.ids.map(([k, v]) => (k === 'id' ? v : `${k}=${v}`)).join(' ') || '(no id)'}\n`);
  } else e.write(`Nothing was created ${when}.\n`);
  if (notRun.length) e.write(`Not run: ${notRun.slice(0, 10).join(', ')}${notRun.length > 10 ? `, … (${notRun.length} steps in all)` : ''}\n`);
}

function resultCell(
  o: { state: string; response?: { data: unknown }; problem?: { code?: string; detail?: string; title?: string }; reason?: string },
  createdIds: (d: unknown) => Array<[string, string]>,
): string {
  if (o.state === 'skipped') return o.reason ?? '';
  if (o.state === 'failed') return [o.problem?.code, o.problem?.detail ?? o.problem?.title].filter(Boolean).join(': ');
  const data = o.response?.data;
  if (Array.isArray(data)) return `${data.length} item${data.length === 1 ? '' : 's'}`;
  return createdIds(data).map(([k, v]) => (k === 'id' ? v : `${k}=${v}`)).join(' ');
}

/** `--dry-run`: the plan, with environment references resolved and step references as written. */
async function printPlan(f: Factory, steps: import('../src/seed/validate.js').PlannedStep[]): Promise<number> {
  const { substitute, asText } = await import('../src/seed/refs.js');
  const { envValue } = await import('../src/seed/validate.js');
  const show = (v: unknown) =>
    substitute(v, {
      whole: (ref) => (ref.kind === 'env' ? envValue(ref, f.env) : ref.raw),
      text: (ref) => (ref.kind === 'env' ? (envValue(ref, f.env) ?? '') : ref.raw),
    });
  const rows = steps.map((st) => {
    const params = show(st.path) as Record<string, unknown>;
    const query = show(st.query) as Record<string, unknown>;
    const qs = Object.entries(query).map(([k, v]) => `${k}=${asText(v)}`).join('&');
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
  if (f.globals.json) printJson(f.io.stdout, { ok: true, dry_run: true, plan: rows });
  else {
    await printRows(f.io, rows, [
      { header: 'STEP', value: (r) => r.step },
      { header: 'OPERATION', value: (r) => r.operation },
      { header: 'METHOD', value: (r) => r.method },
      { header: 'PATH', value: (r) => r.path },
    ]);
    if (f.io.isStderrTTY) f.io.stderr.write(`${steps.length} step${steps.length === 1 ? '' : 's'} valid; nothing was sent (--dry-run).\n`);
  }
  return EXIT.ok;
}

/** Written whole or not at all, so a CI step never reads half a file. */
async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(value, null, 2) + '\n');
  await rename(tmp, file);
}
