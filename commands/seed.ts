import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { defineCommand } from '../src/cli/command.js';
import { EXIT, UsageError } from '../src/cli/errors.js';
import { errStyle, printJson } from '../src/cli/output.js';

interface SeedOptions {
  dryRun?: boolean;
  output?: string;
  continueOnError?: boolean;
}

export default defineCommand<SeedOptions>({
  path: ['seed'],
  summary: "Run API-step fixtures against the target: a CI job's set-up in one command",
  description: `Each FILE holds {"version": 1, "steps": [{"name", "operation", "params", "body"}]} (docs/cli.md: Seeding any instance).
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
    'generate-steps | wcm seed - --output seeded.json',
  ],
  args: [
    {
      name: 'file',
      description: 'API-step fixture files, run in order; - reads one from standard input',
      required: true,
      variadic: true,
      complete: 'file',
    },
  ],
  options: [
    { flags: '--dry-run', description: 'resolve and validate every step and print the plan; send nothing' },
    { flags: '--output <file>', description: "write every step's result as JSON (also when a step fails)" },
    {
      flags: '--continue-on-error',
      description: 'keep going after a failed step (steps using its result are skipped)',
    },
  ],
  async run(opts, f) {
    const { parseSeedFile } = await import('../src/seed/parse.js');
    const { buildPlan } = await import('../src/seed/validate.js');
    const report = await import('../src/seed/report.js');
    const json = !!f.globals.json;
    const { oneStdinReader, readInputText } = await import('../src/cli/body-file.js');
    oneStdinReader(opts.args.map((file, i) => file === '-' && `FILE ${i + 1} (-)`));
    const files = await Promise.all(
      opts.args.map(async (file) => {
        if (file === '-') return { file, ...parseSeedFile((await readInputText(f, 'wcm seed', file)).text, file) };
        try {
          return { file, ...parseSeedFile(await readFile(path.resolve(f.cwd, file), 'utf8'), file) };
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
          return { file, steps: [], problems: [{ file, path: '$', message: `cannot be read (${code}).` }] };
        }
      }),
    );
    const target = await f.target();
    // A token saved for another origin stops the run before anything (exit 4), as for every command.
    if (target.withheld) throw (await import('../src/cli/target.js')).withheldTokenError(target);
    // No workspace from a flag, the environment or a profile of this origin: the token's only one
    // (GET /v1/me), as other commands choose it; never with --dry-run, which sends nothing.
    if (!target.workspace && target.token && !opts.dryRun)
      await f.workspace().catch((err: unknown) => {
        if (!(err instanceof UsageError)) throw err;
      });
    const plan = buildPlan(files, { env: f.env, workspace: target.workspace });
    const output = opts.output ? path.resolve(f.cwd, opts.output) : undefined;
    const s = await errStyle(f.io);

    if (plan.problems.length) {
      const where = { base_url: target.baseUrl, workspace: target.workspace ?? null };
      if (output)
        await report.writeJson(output, {
          version: 1,
          ok: false,
          target: where,
          steps: {},
          not_run: [],
          problems: plan.problems,
        });
      report.printProblems(f.io, s, plan.problems, json);
      return EXIT.usage;
    }
    if (opts.dryRun) {
      await report.printPlan(f.io, plan.steps, f.env, json);
      return EXIT.ok;
    }

    const { runPlan, resultDocument } = await import('../src/seed/run.js');
    const client = await f.client({ requireToken: plan.steps.some((st) => st.operation.access !== 'public') });
    // With --json, stderr is for one JSON problem; progress text would get in its way.
    const progress = f.io.isStderrTTY && !json ? report.progressLine(f.io, s) : undefined;
    // Ctrl-C or a cancelled CI job: finish the step in flight, then stop and report as on a failure.
    const stop = new AbortController();
    let caught: NodeJS.Signals | undefined;
    const onSignal = (sig: NodeJS.Signals) => {
      caught = sig;
      stop.abort();
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const started = Date.now();
    const run = await runPlan(plan.steps, {
      client,
      env: f.env,
      signal: stop.signal,
      continueOnError: opts.continueOnError,
      onStart: progress?.start,
      onDone: progress?.done,
    }).finally(() => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    });
    progress?.clear();

    const doc = resultDocument(run, { baseUrl: client.baseUrl, workspace: target.workspace });
    if (output) await report.writeJson(output, doc);
    if (json) printJson(f.io.stdout, doc);
    else await report.printOutcomes(f.io, run.outcomes);

    if (!run.failure && !run.interrupted) {
      if (progress) report.printSummary(f.io, s, run, files.length, Date.now() - started, opts.output);
      return EXIT.ok;
    }
    report.printStop(f.io, s, run, { json, total: plan.steps.length, signal: caught, output: opts.output });
    // A failing step exits with its status's exit code; a signal with 128 + its number, as shells do.
    if (run.failure) return run.failure.exitCode ?? EXIT.failure;
    return caught === 'SIGINT' ? 130 : 143;
  },
});
