import { Command, CommanderError, Help, Option } from 'commander';
import { commandNamedBy, helpedCommand, jsonFieldsOf } from './argv.js';
import { VERB_ALIASES, groupSummaryOf, groupSummaries, type CommandDef } from './command.js';
import { EXIT, UsageError, exitCodeOf, isReported } from './errors.js';
import { createFactory, packageVersion, type Factory, type GlobalFlags } from './factory.js';
import { systemIO, type IO } from './io.js';
import { printError, selectJsonFields } from './output.js';
import { provideCommands } from './command-table.js';
import { switchValueHint } from './usage-hints.js';

export interface MainDeps {
  io?: IO;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Build the factory (tests pass one with fake io and config). */
  factory?: (globals: GlobalFlags, io: IO) => Factory;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function register(
  program: Command,
  def: CommandDef,
  onRun: (def: CommandDef, cmd: Command, args: string[]) => Promise<void>,
  summaries: ReadonlyMap<string, string>,
  fieldsHelp = '',
): void {
  let parent = program;
  // A group is created by its first command, with its help line from its commands/<group>/index.ts.
  def.path.slice(0, -1).forEach((name, i) => {
    parent =
      parent.commands.find((c) => c.name() === name) ??
      parent.command(name).description(groupSummaryOf(summaries, def.path.slice(0, i + 1)));
  });
  const verb = def.path[def.path.length - 1];
  const cmd = parent
    .command(verb, { hidden: !!def.hidden })
    .description(def.summary)
    .aliases(VERB_ALIASES[verb] ?? []);
  if (def.description) cmd.addHelpText('after', `\n${def.description}`);
  if (def.examples?.length) cmd.addHelpText('after', `\nExamples:\n${def.examples.map((e) => `  $ ${e}`).join('\n')}`);
  if (fieldsHelp) cmd.addHelpText('after', fieldsHelp);
  for (const a of def.args ?? []) {
    const label = a.variadic ? `${a.name}...` : a.name;
    cmd.argument(a.required && !a.pick ? `<${label}>` : `[${label}]`, a.description);
  }
  for (const o of def.options ?? []) {
    const opt = new Option(o.flags, o.description);
    if (o.choices) opt.choices(o.choices);
    if (o.repeatable) opt.argParser(collect).default(undefined);
    else if (o.default !== undefined) opt.default(o.default);
    cmd.addOption(opt);
  }
  if (def.list) {
    cmd.option('--limit <n>', 'page size, 1 to 100 (default 25; 100 with --all)');
    cmd.option('--cursor <cursor>', 'start after this cursor (from a previous page)');
    cmd.option('--all', 'follow next_cursor to the end (with --json: one JSON array, streamed)');
  }
  cmd.action(async (...received: unknown[]) => {
    const self = received[received.length - 1] as Command;
    const args = (received.slice(0, def.args?.length ?? 0) as Array<string | string[] | undefined>).flatMap((a) =>
      a === undefined ? [] : Array.isArray(a) ? a : [a],
    );
    await onRun(def, self, args);
  });
}

/**
 * `wcm __complete WORD… CURRENT` (what the completion scripts call): candidates for the word being
 * typed, never an error, bounded in time. Not a command: its words are the user's line, not flags.
 */
async function completeLine(words: string[], deps: MainDeps): Promise<number> {
  const env = { ...(deps.env ?? process.env), WCM_RETRIES: '0', WCM_TIMEOUT_MS: '1500' };
  const io = deps.io ?? systemIO(env, { noColor: true });
  const [{ commands, groups }, c, { factorySources }] = await Promise.all([
    import('../../commands/index.js'),
    import('./completion.js'),
    import('./completion-sources.js'),
  ]);
  const globals: GlobalFlags = { json: false, color: false, ...c.targetFlags(words, commands) };
  // Nothing on the terminal while the user types: no "→ target" line, no prompts.
  const quiet: IO = {
    ...io,
    isStderrTTY: false,
    isStdinTTY: false,
    canPrompt: () => false,
    stderr: { write: () => true } as unknown as IO['stderr'],
  };
  const f = deps.factory ? deps.factory(globals, quiet) : createFactory(quiet, env, globals, deps.cwd);
  io.stdout.write(c.formatCompletion(await c.complete(words, commands, groupSummaries(groups), factorySources(f))));
  return EXIT.ok;
}

/** Runs the CLI; resolves to the exit code. */
export async function main(rawArgv: string[], deps: MainDeps = {}): Promise<number> {
  if (rawArgv[0] === '__complete') return completeLine(rawArgv.slice(1), deps);
  provideCommands(async () => (await import('../../commands/index.js')).commands);
  const env = deps.env ?? process.env;
  let argv: string[];
  let jsonFields: string[] | undefined;
  try {
    ({ argv, fields: jsonFields } = await jsonFieldsOf(rawArgv));
  } catch (err) {
    const io = deps.io ?? systemIO(env, { noColor: rawArgv.includes('--no-color') });
    await printError(io, err, false);
    return EXIT.usage;
  }
  const globalsFromArgv: GlobalFlags = { color: !argv.includes('--no-color'), json: argv.includes('--json') };
  const io = deps.io ?? systemIO(env, { noColor: !globalsFromArgv.color });
  let exitCode: number = EXIT.ok;
  const program = new Command('wcm')
    .description('Workspace Contact Management: an embedded local API server and a client for any instance.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option(
      '--json',
      'print JSON (the `data` member) on stdout; `--json a,b.c`: only those fields; errors as JSON on stderr',
    )
    .option('--no-color', 'no colour (NO_COLOR is honoured too)')
    .option('--debug', 'print each request and response line on stderr (token redacted)')
    .option('--base-url <url>', 'API base URL ending in /v1 (env WCM_BASE_URL)')
    .option('-w, --workspace <id>', 'workspace id (env WCM_WORKSPACE)')
    .option('--profile <name>', 'profile to use (env WCM_PROFILE)')
    .option('--jq <expression>', 'filter the JSON output with jq, in-process (implies --json; strings print raw)')
    .showHelpAfterError(globalsFromArgv.json ? false : '(run with --help for usage)')
    // Every command's help lists the program's flags too, under gh's name for them.
    .configureHelp({
      showGlobalOptions: true,
      visibleGlobalOptions(cmd) {
        return Help.prototype.visibleGlobalOptions.call(this, cmd).filter((o) => o.long !== '--version');
      },
      formatItemList(heading, items, helper) {
        return Help.prototype.formatItemList.call(
          this,
          heading === 'Global Options:' ? 'Inherited flags:' : heading,
          items,
          helper,
        );
      },
    })
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Help wraps to the terminal's width, and to 80 columns anywhere else (pipes, docs/commands/).
      getOutHelpWidth: () => (io.isStdoutTTY ? io.columns : 80),
      getErrHelpWidth: () => (io.isStderrTTY ? io.columns : 80),
      // With --json a usage error is printed once, as JSON, below.
      outputError: (s, write) => {
        if (!globalsFromArgv.json) write(s);
      },
    });
  program.addHelpText(
    'after',
    `
Environment: WCM_BASE_URL, WCM_TOKEN, WCM_WORKSPACE, WCM_PROFILE, WCM_CONFIG_DIR, NO_COLOR,
  WCM_RETRIES (default 3), WCM_MAX_RETRY_WAIT_MS (default 30000), WCM_TIMEOUT_MS (default 30000),
  HTTPS_PROXY / HTTP_PROXY / NO_PROXY.
Exit codes: 0 ok, 1 failure, 2 usage, 3 validation (422), 4 not authenticated/allowed, 5 not found, 6 rate limited.`,
  );

  const run = async (def: CommandDef, cmd: Command, args: string[]) => {
    const opts = cmd.optsWithGlobals() as Record<string, unknown> & GlobalFlags;
    const jq = typeof opts.jq === 'string' ? opts.jq : undefined;
    const globals: GlobalFlags = {
      json: !!opts.json || jq !== undefined,
      jsonFields,
      jq,
      color: opts.color !== false,
      debug: !!opts.debug,
      baseUrl: opts.baseUrl,
      workspace: opts.workspace,
      profile: opts.profile,
    };
    // --jq: the command writes its JSON here; jq filters it after (and only if) the command succeeded.
    let captured: string | null = null;
    const runIO =
      jq !== undefined
        ? {
            ...io,
            isStdoutTTY: false,
            stdout: { write: (s: string) => ((captured = (captured ?? '') + s), true) } as unknown as IO['stdout'],
          }
        : io;
    const f = deps.factory ? deps.factory(globals, runIO) : createFactory(runIO, env, globals, deps.cwd);
    try {
      if (jq !== undefined) await (await import('./jq.js')).checkJq(jq);
      await selectJsonFields(jsonFields);
      // Local records have no operation for the client to check `--json a,b` against: their list is here.
      if (jsonFields && Array.isArray(def.output))
        await (await import('./json-fields.js')).checkFields(jsonFields, def.output);
      // Ids checked before any request; left out, a choice on a terminal, a usage error otherwise.
      const ids = def.args?.some((a) => a.pick || a.shape) ? await import('./pickers.js') : null;
      const checked = ids ? ids.checkIds(def, args) : args;
      const filled = ids && checked.length < def.args!.length ? await ids.fillMissingIds(def, checked, f) : checked;
      const code = await def.run({ ...opts, args: filled }, f);
      exitCode = typeof code === 'number' ? code : EXIT.ok;
      if (jq !== undefined && exitCode === EXIT.ok && captured !== null)
        io.stdout.write(await (await import('./jq.js')).runJq(captured, jq));
    } catch (err) {
      // A mistyped `--json` field is read by a person on a terminal: plain text there.
      const fieldTypo = err instanceof Error && err.name === 'JsonFieldsError' && io.isStderrTTY;
      await printError(io, err, !!globals.json && !fieldTypo);
      if (!isReported(err) && globals.debug && err instanceof Error && err.stack) io.stderr.write(`${err.stack}\n`);
      exitCode = exitCodeOf(err);
    }
  };
  // One command named: only its file is loaded (no group help line shows in a command's own help).
  const one = await commandNamedBy(argv);
  const { commands: defs, groups } = one ? { commands: [one], groups: [] } : await import('../../commands/index.js');
  const summaries = groupSummaries(groups);
  const helped = helpedCommand(argv, defs);
  const fieldsHelp = helped?.output ? await (await import('./json-fields.js')).jsonFieldsHelp(helped.output, 100) : '';
  for (const def of defs) register(program, def, run, summaries, def === helped ? fieldsHelp : '');
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help')
        return EXIT.ok;
      if (err.code === 'commander.executeSubCommandAsync') return EXIT.ok;
      const hint = err.code === 'commander.excessArguments' ? switchValueHint(program, argv) : undefined;
      if (globalsFromArgv.json)
        await printError(
          io,
          new UsageError(err.message.replace(/^error: /, ''), hint ?? 'Run with --help for usage.'),
          true,
        );
      else if (hint) io.stderr.write(`${hint}\n`);
      return EXIT.usage;
    }
    await printError(io, err, !!globalsFromArgv.json);
    return EXIT.failure;
  }
  return exitCode;
}
