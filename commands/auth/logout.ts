import { noSuchProfile, profileNameOf } from '../../src/cli/auth.js';
import { defineCommand } from '../../src/cli/command.js';

export default defineCommand({
  path: ['auth', 'logout'],
  summary: 'Remove the token saved in a profile (its base URL and workspace stay)',
  description: 'Acts on --profile, else WCM_PROFILE, else the current profile. The token stays valid on the server.',
  async run(_opts, f) {
    const profiles = await f.profiles();
    const name = profileNameOf(f, profiles.current());
    const p = profiles.get(name);
    if (!p) throw noSuchProfile(name, Object.keys(profiles.list()), 'There are no profiles yet.');
    if (!p.token && !p.token_ref) {
      f.io.stderr.write(`Profile ${name} holds no token already.\n`);
    } else {
      if (p.oauth) {
        // Revoke both tokens at the server first; forget them locally even if it fails.
        const { revokeProfileTokens } = await import('../../src/cli/oauth-login.js');
        const { openKeychain: kc } = await import('../../src/cli/credentials.js');
        const access = p.token ?? (p.token_ref ? (await kc(f.env))?.get(p.token_ref) : undefined);
        if (!(await revokeProfileTokens(p, access, f.env)))
          f.io.stderr.write(
            `Warning: the server did not confirm revoking profile ${name}'s OAuth tokens; they are forgotten here anyway.\n`,
          );
      }
      const { forgetProfileToken, openKeychain } = await import('../../src/cli/credentials.js');
      await forgetProfileToken(profiles, name, p.token_ref ? await openKeychain(f.env) : null);
      f.io.stderr.write(`Removed the token of profile ${name} (${p.base_url}).\n`);
    }
    if (f.env.WCM_TOKEN)
      f.io.stderr.write('Note: WCM_TOKEN is set in this environment and still applies to every command.\n');
    return 0;
  },
});
