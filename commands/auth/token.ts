import { notLoggedIn } from '../../src/cli/auth.js';
import { defineCommand } from '../../src/cli/command.js';
import { withheldTokenError } from '../../src/cli/target.js';

export default defineCommand({
  path: ['auth', 'token'],
  summary: 'Print the token of the current target, for scripts',
  description: 'The only command that prints a token. It comes from WCM_TOKEN or the profile, as for any command.',
  examples: ['curl -H "Authorization: Bearer $(wcm auth token)" http://127.0.0.1:4010/v1/me'],
  async run(_opts, f) {
    const t = await f.target();
    if (t.withheld) throw withheldTokenError(t);
    if (!t.token) throw notLoggedIn(t.baseUrl, t.profile);
    f.io.stdout.write(`${t.token}\n`);
    return 0;
  },
});
