import { defineCommand } from '../../../src/cli/command.js';
import { UsageError } from '../../../src/cli/errors.js';
import { printFields, printJson } from '../../../src/cli/output.js';

const EXAMPLE = 'Example: wcm oauth apps create --name "Helpdesk agent" --redirect-uri http://127.0.0.1/callback';

interface Options {
  name?: string;
  redirectUri?: string[];
  confidential?: boolean;
}

export default defineCommand<Options>({
  path: ['oauth', 'apps', 'create'],
  output: 'createOAuthApp',
  summary: 'Register an OAuth application in the workspace (a confidential one gets a secret, shown once)',
  description:
    'Redirect URIs must use https, or http on a loopback address (127.0.0.1, [::1], localhost), where the\n' +
    'port may differ at authorization time. Piped output is tab-separated field/value lines.',
  options: [
    { flags: '--name <name>', description: 'the name users see on the consent page (max 120)' },
    { flags: '--redirect-uri <uri>', description: 'a redirect URI (repeatable, 1 to 10)', repeatable: true },
    { flags: '--confidential', description: 'a server-side client with a secret (default: public, PKCE only)' },
  ],
  examples: [
    'wcm oauth apps create --name "Helpdesk agent" --redirect-uri http://127.0.0.1/callback',
    'wcm oauth apps create --name "Nightly sync" --redirect-uri https://sync.example/cb --confidential --json',
  ],
  async run(opts, f) {
    // docs/cli.md#output-errors-and-exit-codes: what is missing is asked for on a terminal, and a usage error otherwise.
    const ask = async (flag: string, message: string) => {
      if (!f.io.canPrompt())
        throw new UsageError(`Missing \`${flag}\`${flag === '--redirect-uri' ? ' (at least one)' : ''}.`, EXAMPLE);
      const p = await f.io.prompter();
      return (await p.input({ message, validate: (v) => (v.trim() ? true : `${message} is required.`) })).trim();
    };
    const name = opts.name || (await ask('--name', 'Name shown on the consent page'));
    const redirectUris = opts.redirectUri?.length ? opts.redirectUri : [await ask('--redirect-uri', 'Redirect URI')];
    const workspace = await f.workspace();
    const client = await f.client();
    const res = await client.call('createOAuthApp', {
      params: { workspace },
      body: { name, redirect_uris: redirectUris, type: opts.confidential ? 'confidential' : 'public' },
    });
    const a = res.body.data;
    if (f.globals.json) printJson(f.io.stdout, a);
    else {
      await printFields(f.io, [
        ['client_id', a.client_id],
        ['name', a.name],
        ['type', a.type],
        ['redirect_uris', a.redirect_uris.join(' ')],
        ...(a.client_secret ? [['client_secret', a.client_secret] as [string, string]] : []),
      ]);
      if (a.client_secret) f.io.stderr.write('Save the client secret now: it is shown only this once.\n');
    }
    return 0;
  },
});
