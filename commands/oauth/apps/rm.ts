import { defineCommand } from '../../../src/cli/command.js';
import { confirmDestructive } from '../../../src/cli/confirm.js';
import { printJson, terminalText } from '../../../src/cli/output.js';

export default defineCommand<{ yes?: boolean }>({
  path: ['oauth', 'apps', 'rm'],
  output: 'deleteOAuthApp',
  summary: 'Delete an OAuth application; every token it was issued stops working',
  // The pattern of src/api/oauth/schemas.ts's CLIENT_ID_PATTERN (not imported: definitions stay light).
  args: [
    {
      name: 'APP',
      description: 'client id (from `wcm oauth apps ls`)',
      required: true,
      shape: {
        pattern: /^wcm_app_[A-Za-z0-9]{24,}$/,
        like: 'a client id, wcm_app_ and 24 or more letters and digits',
        find: 'wcm oauth apps ls',
      },
    },
  ],
  options: [{ flags: '--yes', description: 'do not ask (needed when not on a terminal)' }],
  examples: ['wcm oauth apps rm wcm_app_demoAcmeHelpdeskAgent000000001 --yes'],
  async run(opts, f) {
    const [app] = opts.args;
    const workspace = await f.workspace();
    if (
      !(await confirmDestructive(
        f,
        opts.yes,
        `Delete application ${app} and revoke every token it was issued?`,
        `wcm oauth apps rm ${app}`,
      ))
    ) {
      f.io.stderr.write('Nothing deleted.\n');
      return 1;
    }
    const client = await f.client();
    const res = await client.call('deleteOAuthApp', { params: { workspace, app } });
    if (f.globals.json) printJson(f.io.stdout, res.body.data);
    else
      f.io.stderr.write(
        terminalText(`Deleted ${res.body.data.name} (${res.body.data.client_id}); its tokens are revoked.\n`),
      );
    return 0;
  },
});
