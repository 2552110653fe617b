import {
  canonicalVerb,
  groupSummaryOf,
  type ArgSpec,
  type CommandDef,
  type Completer,
  type OptionSpec,
} from './command.js';

/**
 * Shell completion, cobra's way (gh, kubectl): the shell scripts are thin and ask the binary,
 * `wcm __complete WORD… CURRENT`, which answers one candidate per line (`value<TAB>description`)
 * and a last line `:files` (let the shell complete file names) or `:done`. Everything about
 * commands, flags, values and ids lives here, derived from the command table.
 */
export interface Candidate {
  value: string;
  description?: string;
}

export interface Completion {
  candidates: Candidate[];
  files: boolean;
}

/** Where dynamic candidates come from; each source is bounded by a timeout and silent on failure. */
export interface CandidateSources {
  ids(def: CommandDef, index: number, earlier: string[]): Promise<Candidate[]>;
  named(kind: Exclude<Completer, 'file' | readonly string[]>): Promise<Candidate[]>;
}

/** The program's own flags (main.ts registers them), with what their values complete to. */
export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  { flags: '--json', description: 'print JSON (`--json a,b`: only those fields)' },
  { flags: '--jq <expression>', description: 'filter the JSON output with jq' },
  { flags: '--no-color', description: 'no colour' },
  { flags: '--debug', description: 'print each request and response line on stderr' },
  { flags: '--base-url <url>', description: 'API base URL ending in /v1' },
  { flags: '-w, --workspace <id>', description: 'workspace id', complete: 'workspace' },
  { flags: '--profile <name>', description: 'profile to use', complete: 'profile' },
  { flags: '--help', description: 'show help' },
];
const LIST_OPTIONS: readonly OptionSpec[] = [
  { flags: '--limit <n>', description: 'page size, 1 to 100' },
  { flags: '--cursor <cursor>', description: 'start after this cursor' },
  { flags: '--all', description: 'follow next_cursor to the end' },
];

const names = (o: OptionSpec) => o.flags.split(/[ ,|]+/).filter((w) => /^--?[a-zA-Z]/.test(w));
const takesValue = (o: OptionSpec) => /<[^>]+>|\[[^\]]+\]/.test(o.flags) && !o.flags.startsWith('--json');
/** `<file>` and `<fixture>` placeholders name files without saying so. */
const completerOf = (o: OptionSpec): Completer | undefined =>
  o.complete ?? (o.choices ? o.choices : /<(file|fixture)>/.test(o.flags) ? 'file' : undefined);

function optionsOf(def: CommandDef | undefined): OptionSpec[] {
  return [...(def?.options ?? []), ...(def?.list ? LIST_OPTIONS : []), ...GLOBAL_OPTIONS];
}

/** Where the cursor is: the command named so far, its positional arguments, and a flag awaiting its value. */
interface Position {
  path: string[];
  def?: CommandDef;
  positionals: string[];
  pending?: OptionSpec;
  /** Global flags given on the line (`--profile cy`), so ids come from the target the command would use. */
  globals: Record<string, string>;
}

/** Whether commands sit under `path` (`local clock` is a command and the group of `local clock set`). */
const hasChildren = (path: string[], commands: readonly CommandDef[]): boolean =>
  commands.some((c) => !c.hidden && c.path.length > path.length && path.every((w, j) => c.path[j] === w));

function locate(before: string[], commands: readonly CommandDef[]): Position {
  const pos: Position = { path: [], positionals: [], globals: {} };
  let group = true;
  for (let i = 0; i < before.length; i++) {
    const w = before[i];
    if (w.startsWith('-') && w.length > 1) {
      const [flag, inline] = w.includes('=')
        ? [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]
        : [w, undefined];
      const opt = optionsOf(pos.def).find((o) => names(o).includes(flag));
      if (!opt || !takesValue(opt) || inline !== undefined) {
        if (opt && inline !== undefined) pos.globals[flag] = inline;
        continue;
      }
      if (i + 1 === before.length) pos.pending = opt;
      else pos.globals[flag] = before[++i];
      continue;
    }
    if (group) {
      const next = [...pos.path, canonicalVerb(w)];
      const key = next.join(' ');
      if (
        !commands.some((c) => !c.hidden && c.path.length >= next.length && next.every((word, j) => c.path[j] === word))
      ) {
        group = false;
        continue;
      }
      pos.path = next;
      pos.def = commands.find((c) => c.path.join(' ') === key);
      if (pos.def && !hasChildren(next, commands)) group = false;
      continue;
    }
    pos.positionals.push(w);
  }
  return pos;
}

/** The subcommands under `path`, each with its summary (a group's help line from `groups`, by its words). */
function children(path: string[], commands: readonly CommandDef[], groups: ReadonlyMap<string, string>): Candidate[] {
  const out = new Map<string, string>();
  for (const c of commands) {
    if (c.hidden || c.path.length <= path.length || path.some((w, i) => c.path[i] !== w)) continue;
    const word = c.path[path.length];
    if (!out.has(word))
      out.set(word, c.path.length === path.length + 1 ? c.summary : groupSummaryOf(groups, [...path, word]));
  }
  return [...out].map(([value, description]) => ({ value, description }));
}

async function valuesOf(completer: Completer | undefined, sources: CandidateSources): Promise<Completion> {
  if (completer === 'file') return { candidates: [], files: true };
  if (!completer) return { candidates: [], files: false };
  if (typeof completer !== 'string') return { candidates: completer.map((value) => ({ value })), files: false };
  return { candidates: await sources.named(completer), files: false };
}

function argAt(def: CommandDef, index: number): ArgSpec | undefined {
  const args = def.args ?? [];
  const last = args[args.length - 1];
  return index < args.length ? args[index] : last?.variadic ? last : undefined;
}

/** What to offer for the word being typed (`words`: everything after `wcm`, the last one being typed). */
export async function complete(
  words: string[],
  commands: readonly CommandDef[],
  groups: ReadonlyMap<string, string>,
  sources: CandidateSources,
): Promise<Completion> {
  const current = words[words.length - 1] ?? '';
  const pos = locate(words.slice(0, -1), commands);
  const byPrefix = (c: Completion): Completion => ({
    ...c,
    candidates: c.candidates.filter((x) => x.value.startsWith(current)),
  });
  if (pos.pending) return byPrefix(await valuesOf(completerOf(pos.pending), sources));
  if (current.startsWith('-')) {
    const flags = optionsOf(pos.def).flatMap((o) =>
      names(o)
        .filter((n) => n.startsWith('--'))
        .map((value) => ({ value, description: o.description })),
    );
    return byPrefix({ candidates: flags, files: false });
  }
  if (!pos.def || (!pos.def.args?.length && hasChildren(pos.path, commands)))
    return byPrefix({ candidates: children(pos.path, commands, groups), files: false });
  const index = pos.positionals.length;
  const arg = argAt(pos.def, index);
  if (arg?.pick)
    return byPrefix({
      candidates: await sources.ids(pos.def, Math.min(index, (pos.def.args?.length ?? 1) - 1), pos.positionals),
      files: false,
    });
  return byPrefix(await valuesOf(arg?.complete, sources));
}

/** The answer as the scripts read it: `value<TAB>description` lines, then `:files` or `:done`. */
export function formatCompletion(c: Completion): string {
  // A value or description never carries a control character (ESC, OSC…) to the shell's screen.
  const plain = (t: string) => t.replace(/[\x00-\x1f\x7f-\x9f]/g, (ch) => (/\s/.test(ch) ? ' ' : ''));
  const line = (x: Candidate) =>
    x.description ? `${plain(x.value)}\t${plain(x.description).replace(/\s+/g, ' ').slice(0, 90)}` : plain(x.value);
  return [...c.candidates.map(line), c.files ? ':files' : ':done'].join('\n') + '\n';
}

/** The global flags given on the line, as main.ts's GlobalFlags for the factory. */
export function targetFlags(
  words: string[],
  commands: readonly CommandDef[],
): { baseUrl?: string; workspace?: string; profile?: string } {
  const g = locate(words.slice(0, -1), commands).globals;
  return { baseUrl: g['--base-url'], workspace: g['--workspace'] ?? g['-w'], profile: g['--profile'] };
}

const header = (shell: string, install: string) =>
  `# wcm completion for ${shell} (it asks \`wcm __complete\`, so it follows the installed wcm).\n# Install: ${install}\n`;

export function bashScript(): string {
  return `${header('bash', 'wcm completion bash > ~/.local/share/bash-completion/completions/wcm (or `source <(wcm completion bash)` in ~/.bashrc)')}_wcm() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" out line
  out=$(wcm __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return
  COMPREPLY=()
  if [[ "\${out##*$'\\n'}" == ":files" ]]; then
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    return
  fi
  # Ids only, as gh does in bash: bash cannot show a description beside a candidate. Each is
  # quoted (printf %q): bash inserts a candidate as it is, so an unquoted $( ) would run.
  while IFS= read -r line; do
    [[ "$line" == :* ]] && continue
    printf -v line '%q' "\${line%%$'\\t'*}"
    COMPREPLY+=("$line")
  done <<< "$out"
}
complete -F _wcm wcm
`;
}

export function zshScript(): string {
  return `#compdef wcm
${header('zsh', 'wcm completion zsh > "${fpath[1]}/_wcm" (then restart zsh), or `source <(wcm completion zsh)` after compinit')}_wcm() {
  local out line
  local -a lines candidates
  out=$(wcm __complete "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  lines=("\${(@f)out}")
  if [[ "\${lines[-1]}" == ":files" ]]; then
    _files
    return
  fi
  for line in "\${(@)lines[1,-2]}"; do
    # _describe reads value:description, so a colon inside the value is escaped.
    if [[ "$line" == *$'\\t'* ]]; then
      candidates+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
    else
      candidates+=("\${line//:/\\\\:}")
    fi
  done
  _describe -t wcm 'wcm' candidates
}
if [[ "\${funcstack[1]}" == "_wcm" ]]; then
  _wcm "$@"
else
  compdef _wcm wcm
fi
`;
}

export function fishScript(): string {
  return `${header('fish', 'wcm completion fish > ~/.config/fish/completions/wcm.fish')}function __wcm_complete
    set -l words (commandline -opc) (commandline -ct)
    set -e words[1]
    set -l out (wcm __complete $words 2>/dev/null)
    if test "$out[-1]" = ":files"
        __fish_complete_path (commandline -ct)
        return
    end
    # fish shows value<TAB>description as a candidate with its description.
    if test (count $out) -gt 1
        printf '%s\\n' $out[1..-2]
    end
end
complete -c wcm -f -a '(__wcm_complete)'
`;
}
