import { existsSync } from 'node:fs';
import { canonicalVerb, type CommandDef } from './command.js';
import { UsageError } from './errors.js';

/**
 * Reading argv before commander does: which one command it names (so only that file loads), whose
 * help it asks for, and the field list of `--json a,b.c`.
 */

/** Global options that take a value, so the command words can be found after them. */
const GLOBAL_WITH_VALUE = new Set(['--base-url', '-w', '--workspace', '--profile', '--jq']);
const GLOBAL_FLAGS = new Set(['--json', '--no-color', '--debug']);

/**
 * The command whose help argv asks for (`wcm forms show --help`, `wcm help forms show`), so its
 * "JSON fields" section is made for it alone: `wcm --help` must not load the contract.
 */
export function helpedCommand(argv: string[], defs: readonly CommandDef[]): CommandDef | undefined {
  if (!argv.some((a) => a === '--help' || a === '-h' || a === 'help')) return undefined;
  const words = argv
    .filter((a, i) => !a.startsWith('-') && !GLOBAL_WITH_VALUE.has(argv[i - 1]) && a !== 'help')
    .map(canonicalVerb);
  const matches = defs.filter((d) => d.path.every((w, i) => words[i] === w));
  return matches.sort((a, b) => b.path.length - a.path.length)[0];
}

/**
 * The one command `argv` names, loaded alone: a command lives in `commands/<path>.js`, so
 * `wcm lists ls …` needs only commands/lists/ls.js, not all thirty definitions. Anything else
 * (help, a group, an unknown word or option before the command) gets null, and every command.
 */
export async function commandNamedBy(argv: string[]): Promise<CommandDef | null> {
  let i = 0;
  while (i < argv.length && argv[i].startsWith('-')) {
    if (GLOBAL_WITH_VALUE.has(argv[i])) i += 2;
    else if (GLOBAL_FLAGS.has(argv[i]) || /^--(base-url|workspace|profile)=/.test(argv[i])) i += 1;
    else return null;
  }
  const words = argv.slice(i, i + 3).map(canonicalVerb);
  const word = /^[a-z]+$/;
  // The longest command the words name first: `local clock set` before `local clock`.
  for (const path of [words, words.slice(0, 2), words.slice(0, 1)]) {
    if (!path.length || !path.every((w) => word.test(w))) continue;
    try {
      const def = ((await import(`../../commands/${path.join('/')}.js`)) as { default?: CommandDef }).default;
      if (!def || !Array.isArray(def.path) || def.path.join(' ') !== path.join(' ')) continue;
      // A command that is also a group (`local clock` beside `local clock set`) needs its subcommands too.
      if (existsSync(new URL(`../../commands/${path.join('/')}/`, import.meta.url))) return null;
      return def;
    } catch {
      /* no such file, or not a command: look further */
    }
  }
  return null;
}

const UUID_LIKE = /^[0-9a-f]{8}-[0-9a-f]{4}-/i;

/**
 * `--json a,b.c` (or `--json=a,b.c`): the fields, and argv with a plain `--json` in their place.
 * The word after `--json` is a field list only after the command (`wcm threads ls --json id`),
 * and not when it is itself a command word (`--json=status` says it unambiguously).
 */
export async function jsonFieldsOf(argv: string[]): Promise<{ argv: string[]; fields?: string[] }> {
  if (!argv.some((a) => a === '--json' || a.startsWith('--json='))) return { argv };
  const { FIELD_LIST } = await import('./json-fields.js');
  const out: string[] = [];
  let fields: string[] | undefined;
  let words: Set<string> | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--json=')) {
      if (!FIELD_LIST.test(a.slice(7)))
        throw new UsageError(`\`--json\` takes fields like \`id,title,contact.name\`; received \`${a.slice(7)}\`.`);
      fields = a.slice(7).split(',');
      out.push('--json');
      continue;
    }
    const next = argv[i + 1];
    // Fields only after the command's words (`wcm threads ls --json id`), never before them.
    if (a === '--json' && next !== undefined && FIELD_LIST.test(next) && !UUID_LIKE.test(next)) {
      words ??= new Set((await import('../../commands/index.js')).commands.flatMap((c) => c.path));
      const commandBefore = out.some((w) => words!.has(w));
      if (commandBefore && (/[.,]/.test(next) || !words.has(next))) {
        fields = next.split(',');
        out.push('--json');
        i++;
        continue;
      }
    }
    out.push(a);
  }
  return { argv: out, fields };
}
