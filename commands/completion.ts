import { defineCommand } from '../src/cli/command.js';
import { UsageError } from '../src/cli/errors.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

export default defineCommand({
  path: ['completion'],
  summary: 'Print a shell completion script (bash, zsh or fish) generated from the commands',
  description:
    'Completes commands, subcommands, flags, flag values (--view, --status, --profile, --template, --to, …),\n' +
    'file names for file flags and arguments, and ids (forms, pages, threads, … from the target, each with\n' +
    'its name beside it in zsh and fish; bash shows the ids only), within 1.5 s and silently when offline.\n' +
    '  bash: wcm completion bash > ~/.local/share/bash-completion/completions/wcm\n' +
    '  zsh:  wcm completion zsh > "${fpath[1]}/_wcm"\n' +
    '  fish: wcm completion fish > ~/.config/fish/completions/wcm.fish',
  args: [{ name: 'SHELL', description: 'bash, zsh or fish', required: true, complete: SHELLS }],
  examples: ['source <(wcm completion bash)', 'wcm completion fish > ~/.config/fish/completions/wcm.fish'],
  async run(opts, f) {
    const shell = opts.args[0];
    if (!(SHELLS as readonly string[]).includes(shell))
      throw new UsageError(`\`${shell}\` is not a shell wcm completes.`, `Use one of: ${SHELLS.join(', ')}.`);
    // The scripts ask `wcm __complete` for every candidate: a new command completes with no code here.
    const c = await import('../src/cli/completion.js');
    f.io.stdout.write(shell === 'bash' ? c.bashScript() : shell === 'zsh' ? c.zshScript() : c.fishScript());
    return 0;
  },
});
