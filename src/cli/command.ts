import type { OperationId } from '../contract/table.js';
import type { Factory } from './factory.js';

/** The kinds of id a command argument can be picked from (src/cli/pickers.ts has one picker each). */
export type PickerName =
  'listing' | 'form' | 'page' | 'knowledgeList' | 'article' | 'articleVersion' | 'offer' | 'agent' | 'thread';

/**
 * What a value completes to in the shell (src/cli/completion.ts): file names, fixed words, or
 * candidates looked up when asked (profile names, listing templates, workspaces, snapshots, reset states).
 */
export type Completer = 'file' | 'profile' | 'template' | 'workspace' | 'snapshot' | 'state' | readonly string[];

export interface ArgSpec {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
  /**
   * An id found through this picker (src/cli/pickers.ts) when left out: on a terminal a searchable
   * choice, piped a usage error naming the argument. Such an argument is optional to the parser.
   */
  pick?: PickerName;
  /** What an id given here must look like, checked before any request (ids from a picker are UUIDs). */
  shape?: { pattern: RegExp; like: string; find: string };
  /** What the shell completes here (an argument with `pick` completes to its ids). */
  complete?: Completer;
}

export interface OptionSpec {
  /** Commander flags, e.g. `--title <title>` or `--publish`. */
  flags: string;
  description: string;
  default?: string | boolean | string[];
  /** Collect every occurrence into an array. */
  repeatable?: boolean;
  choices?: readonly string[];
  /** What the shell completes its value to; `<file>` flags complete file names without saying so. */
  complete?: Completer;
}

/**
 * A command is data plus a run function (wrangler's createCommand, GitHub CLI's Options + runF):
 * the definition declares arguments, flags and help; `run` is a plain async function a test can
 * call with options and a factory, without parsing argv.
 */
export interface CommandDef<O = Record<string, unknown>> {
  /** e.g. ['lists', 'create']. */
  path: string[];
  summary: string;
  description?: string;
  examples?: string[];
  args?: ArgSpec[];
  options?: OptionSpec[];
  /**
   * What `--json` prints: the operation whose `data` it is, or (for local records) the fields
   * themselves. Help lists them under "JSON fields"; `--json a,b` is checked against them.
   */
  output?: OperationId | readonly string[];
  /** Adds --limit, --cursor and --all. */
  list?: boolean;
  /** Left out of --help (plumbing for scripts, such as shell completion's `__complete`). */
  hidden?: boolean;
  /** Returns the exit code (0 when omitted). Positional arguments arrive in `opts.args`. */
  run(opts: O & { args: string[] }, f: Factory): Promise<number | void>;
}

/**
 * Other words for a verb, as gh has them (`gh pr view`, `gh repo list`): every `show` also answers to
 * `get` and `view`, every `ls` to `list`. Help and completion name the verb itself.
 */
export const VERB_ALIASES: Readonly<Record<string, readonly string[]>> = { show: ['get', 'view'], ls: ['list'] };

/** The verb an alias stands for (`get` → `show`), or the word itself. */
export const canonicalVerb = (word: string) =>
  Object.keys(VERB_ALIASES).find((v) => VERB_ALIASES[v].includes(word)) ?? word;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function defineCommand<O = any>(def: CommandDef<O>): CommandDef<O> {
  return def;
}

/**
 * A command group: its help line (`wcm --help`, `wcm <group> --help`, shell completion), its
 * commands in help order, and the help lines of the groups nested in it (`local snapshot`), all
 * written once in the group's own `commands/<group>/index.ts`.
 */
export interface GroupDef {
  /** The group's word, e.g. `lists`. */
  name: string;
  summary: string;
  /** Nested groups by their word under this one (`snapshot` is `wcm local snapshot`), each with its help line. */
  subgroups?: Readonly<Record<string, string>>;
  commands: CommandDef[];
}

export function defineGroup(group: GroupDef): GroupDef {
  return group;
}

/**
 * Each group's help line by its words (`lists`, `local snapshot`); a group with none shows `<word>
 * commands` (test/cli/help.test.ts checks that every group has one).
 */
export function groupSummaries(groups: readonly GroupDef[]): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const g of groups) {
    out.set(g.name, g.summary);
    for (const [word, summary] of Object.entries(g.subgroups ?? {})) out.set(`${g.name} ${word}`, summary);
  }
  return out;
}

/** What a group without a help line of its own shows. */
export const groupSummaryOf = (summaries: ReadonlyMap<string, string>, path: readonly string[]) =>
  summaries.get(path.join(' ')) ?? `${path[path.length - 1]} commands`;

/** Flags every list command takes. */
export interface ListFlags {
  limit?: string;
  cursor?: string;
  all?: boolean;
}
