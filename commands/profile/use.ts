import { defineCommand } from '../../src/cli/command.js';
import { UsageError } from '../../src/cli/errors.js';

export default defineCommand({
  path: ['profile', 'use'],
  summary: 'Make a profile the current one (used when no --profile or WCM_PROFILE is given)',
  args: [{ name: 'profile', description: 'profile name (see `wcm profile ls`)', required: true, complete: 'profile' }],
  async run(opts, f) {
    const profiles = await f.profiles();
    const name = opts.args[0];
    if (!profiles.get(name)) {
      const known = Object.keys(profiles.list()).sort();
      throw new UsageError(
        `Profile \`${name}\` does not exist.`,
        known.length ? `Known profiles: ${known.join(', ')}.` : 'Create one with `wcm auth login --profile NAME`.',
      );
    }
    await profiles.use(name);
    f.io.stderr.write(`Current profile: ${name}\n`);
    return 0;
  },
});
