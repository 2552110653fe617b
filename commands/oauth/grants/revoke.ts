import { defineCommand } from '../../../src/cli/command.js';
import { confirmDestructive } from '../../../src/cli/confirm.js';
import { printJson, terminalText } from '../../../src/cli/output.js';

export default defineCommand<{ yes?: boolean }>({
  path: ['oauth', 'grants', 'revoke'],
  output: 'revokeOAuthGrant',
  summary: 'Revoke one of your OAuth grants: every token issued under it stops working',
  // The pattern of src/api/oauth/schemas.ts's GrantId (not imported: definitions stay light).
  args: [
    {
      name: 'GRANT',
      description: 'grant id (from `wcm oauth grants ls`)',
      required: true,
      shape: {
        pattern: /^grant_[A-Za-z0-9]{16,}$/,
        like: 'a grant id, grant_ and 16 or more letters and digits',
        find: 'wcm oauth grants ls',
      },
    },
  ],
  options: [{ flags: '--yes', description: 'do not ask (needed when not on a terminal)' }],
  examples: ['wcm oauth grants revoke grant_demoAdaAcmeHelpdesk01 --yes'],
  async run(opts, f) {
    const [grant] = opts.args;
    if (
      !(await confirmDestructive(
        f,
        opts.yes,
        `Revoke grant ${grant} and every token issued under it?`,
        `wcm oauth grants revoke ${grant}`,
      ))
    ) {
      f.io.stderr.write('Nothing revoked.\n');
      return 1;
    }
    const client = await f.client();
    const res = await client.call('revokeOAuthGrant', { params: { grant } });
    if (f.globals.json) printJson(f.io.stdout, res.body.data);
    else f.io.stderr.write(terminalText(`Revoked ${res.body.data.id} (${res.body.data.app_name}).\n`));
    return 0;
  },
});
