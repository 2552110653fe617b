import { defineCommand } from '../src/cli/command.js';
import { UsageError } from '../src/cli/errors.js';
import { allCommands } from '../src/cli/command-table.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

export default defineCommand({
  path: ['completion'],
  summary: 'Print a shell completion script (bash, zsh or fish) generated from the commands',
  description:
    'Completes commands, subcommands, flags, flag values (--view, --channel, --status, --kind, --outcome, …)\n' +
    'and ids (forms, pages, threads, … from the target, with a short timeout; nothing when offline).\n' +
    '  bash: wcm completion bash > ~/.local/share/bash-completion/completions/wcm\n' +
    '  zsh:  wcm completion zsh > "${fpath[1]}/_wcm"\n' +
    '  fish: wcm completion fish > ~/.config/fish/completions/wcm.fish',
  args: [{ name: 'SHELL', description: 'bash, zsh or fish', required: true }],
  examples: ['source <(wcm completion bash)', 'wcm completion fish > ~/.config/fish/completions/wcm.fish'],
  async run(opts, f) {
    const shell = opts.args[0];
    if (!(SHELLS as readonly string[]).includes(shell)) throw new UsageError(`\`${shell}\` is not a shell wcm completes.`, `Use one of: ${SHELLS.join(', ')}.`);
    // The command table itself: a new command completes with no code here.
    const [commands, c] = await Promise.all([allCommands(), import('../src/cli/completion.js')]);
    const spec = c.completionSpec(commands);
    f.io.stdout.write(shell === 'bash' ? c.bashScript(spec) : shell === 'zsh' ? c.zshScript(spec) : c.fishScript(spec));
    return 0;
  },
});
