import type { CommandDef } from './command.js';

/** Flags every command takes (main.ts registers them on the program). */
export const GLOBAL_FLAGS = ['--json', '--no-color', '--debug', '--base-url', '--workspace', '--profile', '--help'];
const LIST_FLAGS = ['--limit', '--cursor', '--all'];

/** What the shells need to know, derived from the command table: nothing is written by hand per command. */
export interface CompletionSpec {
  /** Command path ('' for the top) → its subcommand words. */
  children: Map<string, string[]>;
  /** Full command path → its flags. */
  flags: Map<string, string[]>;
  /** `path|flag` → the values the flag accepts. */
  values: Map<string, string[]>;
  /** Full command path → the picker of its first id argument, for dynamic candidates. */
  pickers: Map<string, string>;
}

const flagNames = (flags: string) => flags.split(/[ ,|]+/).filter((w) => w.startsWith('--'));

export function completionSpec(commands: readonly CommandDef[]): CompletionSpec {
  const children = new Map<string, string[]>();
  const flags = new Map<string, string[]>();
  const values = new Map<string, string[]>();
  const pickers = new Map<string, string>();
  const add = (parent: string, word: string) => {
    const list = children.get(parent) ?? [];
    if (!list.includes(word)) list.push(word);
    children.set(parent, list);
  };
  for (const c of commands) {
    if (c.hidden) continue;
    c.path.forEach((word, i) => add(c.path.slice(0, i).join(' '), word));
    const full = c.path.join(' ');
    const own = (c.options ?? []).flatMap((o) => flagNames(o.flags));
    flags.set(full, [...own, ...(c.list ? LIST_FLAGS : []), ...GLOBAL_FLAGS]);
    for (const o of c.options ?? []) if (o.choices?.length) for (const f of flagNames(o.flags)) values.set(`${full}|${f}`, [...o.choices]);
    const pick = c.args?.find((a) => a.pick)?.pick;
    if (pick) pickers.set(full, pick);
  }
  return { children, flags, values, pickers };
}

const words = (list: readonly string[]) => list.join(' ');
const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function bashScript(spec: CompletionSpec): string {
  const caseArms = (map: Map<string, string[]>) => [...map].map(([k, v]) => `    ${sh(k)}) echo ${sh(words(v))} ;;`).join('\n');
  return `# wcm completion for bash. Install: wcm completion bash > ~/.local/share/bash-completion/completions/wcm
# (or add \`source <(wcm completion bash)\` to ~/.bashrc)
_wcm_children() {
  case "$1" in
${caseArms(spec.children)}
  esac
}
_wcm_flags() {
  case "$1" in
${caseArms(spec.flags)}
  esac
}
_wcm_values() {
  case "$1" in
${caseArms(spec.values)}
  esac
}
_wcm_picker() {
  case "$1" in
${[...spec.pickers].map(([k, v]) => `    ${sh(k)}) echo ${sh(v)} ;;`).join('\n')}
  esac
}
_wcm() {
  local cur prev path="" i w sub
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    sub=$(_wcm_children "$path")
    if [[ " $sub " == *" $w "* ]]; then path="\${path:+$path }$w"; fi
  done
  if [[ "$prev" == --* ]]; then
    local vals; vals=$(_wcm_values "$path|$prev")
    if [[ -n "$vals" ]]; then COMPREPLY=($(compgen -W "$vals" -- "$cur")); return; fi
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_wcm_flags "$path")" -- "$cur")); return
  fi
  sub=$(_wcm_children "$path")
  if [[ -n "$sub" ]]; then COMPREPLY=($(compgen -W "$sub" -- "$cur")); return; fi
  local picker; picker=$(_wcm_picker "$path")
  if [[ -n "$picker" ]]; then
    COMPREPLY=($(compgen -W "$(wcm __complete "$picker" 2>/dev/null)" -- "$cur"))
  fi
}
complete -F _wcm wcm
`;
}

export function zshScript(spec: CompletionSpec): string {
  // zsh runs the bash function through bashcompinit: one generated logic for both shells.
  return `#compdef wcm
# wcm completion for zsh. Install: wcm completion zsh > "\${fpath[1]}/_wcm" (then restart zsh),
# or add \`source <(wcm completion zsh)\` to ~/.zshrc
autoload -U +X bashcompinit && bashcompinit
${bashScript(spec).split('\n').filter((l) => !l.startsWith('# wcm completion for bash') && !l.startsWith('# (or add')).join('\n')}`;
}

export function fishScript(spec: CompletionSpec): string {
  const lines = ['# wcm completion for fish. Install: wcm completion fish > ~/.config/fish/completions/wcm.fish'];
  const seen = (path: string) => (path ? `__fish_seen_subcommand_from ${path.split(' ').pop()}` : '__fish_use_subcommand');
  for (const [parent, subs] of spec.children) {
    const cond = parent ? `__fish_seen_subcommand_from ${parent.split(' ').pop()}; and not __fish_seen_subcommand_from ${subs.join(' ')}` : '__fish_use_subcommand';
    lines.push(`complete -c wcm -f -n ${sh(cond)} -a ${sh(words(subs))}`);
  }
  for (const [path, flags] of spec.flags) {
    if (!path) continue;
    for (const f of flags) {
      const vals = spec.values.get(`${path}|${f}`);
      lines.push(`complete -c wcm -n ${sh(seen(path))} -l ${f.slice(2)}${vals ? ` -x -a ${sh(words(vals))}` : ''}`);
    }
  }
  for (const [path, picker] of spec.pickers) lines.push(`complete -c wcm -f -n ${sh(seen(path))} -a ${sh(`(wcm __complete ${picker} 2>/dev/null)`)}`);
  return `${lines.join('\n')}\n`;
}
