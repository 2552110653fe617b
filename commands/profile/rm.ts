import { defineCommand } from '../../src/cli/command.js';
import { noSuchProfile } from '../../src/cli/auth.js';

export default defineCommand({
  path: ['profile', 'rm'],
  summary: 'Remove a saved profile, with its token (from the OS keychain too)',
  description:
    'The token stays valid on the server: this forgets it here. Removing the current profile leaves no\n' +
    'current one until `wcm profile use` (or a login) chooses another.',
  args: [{ name: 'profile', description: 'profile name (see `wcm profile ls`)', required: true, complete: 'profile' }],
  examples: ['wcm profile rm local-4011'],
  async run(opts, f) {
    const profiles = await f.profiles();
    const name = opts.args[0];
    const p = profiles.get(name);
    if (!p) throw noSuchProfile(name, Object.keys(profiles.list()), 'There are no profiles.');
    const wasCurrent = profiles.current() === name;
    const { forgetProfileToken, openKeychain } = await import('../../src/cli/credentials.js');
    if (p.token_ref || p.oauth?.refresh_ref) await forgetProfileToken(profiles, name, await openKeychain(f.env));
    await profiles.remove(name);
    f.io.stderr.write(`Removed profile ${name} (${p.base_url}).\n`);
    if (wasCurrent) {
      const now = profiles.current();
      f.io.stderr.write(
        now
          ? `It was the current profile; commands now use profile ${now}.\n`
          : 'It was the current profile; none is current now: choose one with `wcm profile use NAME`.\n',
      );
    }
    return 0;
  },
});
