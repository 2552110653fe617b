import { defineCommand } from '../../src/cli/command.js';
import { noSuchProfile } from '../../src/cli/auth.js';

export default defineCommand({
  path: ['profile', 'use'],
  summary: 'Make a profile the current one (used when no --profile or WCM_PROFILE is given)',
  args: [{ name: 'profile', description: 'profile name (see `wcm profile ls`)', required: true, complete: 'profile' }],
  async run(opts, f) {
    const profiles = await f.profiles();
    const name = opts.args[0];
    if (!profiles.get(name))
      throw noSuchProfile(name, Object.keys(profiles.list()), 'Create one with `wcm auth login --profile NAME`.');
    await profiles.use(name);
    f.io.stderr.write(`Current profile: ${name}\n`);
    return 0;
  },
});
