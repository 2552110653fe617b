import { defineCommand } from '../../src/cli/command.js';
import { apiErrorOf, CliError, EXIT, UsageError } from '../../src/cli/errors.js';
import { noSuchProfile, profileNameOf } from '../../src/cli/auth.js';

export default defineCommand({
  path: ['profile', 'set-workspace'],
  summary: "Set a profile's default workspace without logging in again",
  description:
    'Acts on --profile, else WCM_PROFILE, else the current profile. The workspace (an id, or a name)\n' +
    "must be one the profile's token reaches: it is checked with GET /v1/me at the profile's base URL\n" +
    'before anything is saved.',
  args: [{ name: 'workspace', description: 'workspace id or name', required: true, complete: 'workspace' }],
  examples: [
    'wcm profile set-workspace 775050e9-98e8-4600-8d0f-afce4b67e137',
    'wcm --profile demo profile set-workspace "Acme Coffee"',
  ],
  async run(opts, f) {
    const profiles = await f.profiles();
    const name = profileNameOf(f, profiles.current());
    const p = profiles.get(name);
    if (!p) throw noSuchProfile(name, Object.keys(profiles.list()), 'Create one with `wcm auth login --profile NAME`.');
    const token =
      p.token ??
      (p.token_ref
        ? (await (await import('../../src/cli/credentials.js')).openKeychain(f.env))?.get(p.token_ref)
        : undefined);
    if (!token)
      throw new CliError(
        `Profile ${name} holds no token, so the workspace cannot be checked.`,
        EXIT.auth,
        `Log in with \`wcm auth login --profile ${name} --workspace ID\`.`,
      );
    // Straight to the profile's own origin with its own token (the token goes nowhere else).
    const client = await f.client({ baseUrl: p.base_url, token });
    let reach: Array<{ id: string; name: string }>;
    try {
      reach = (await client.call('getMe')).body.data.workspaces;
    } catch (err) {
      const api = apiErrorOf(err);
      if (api && (api.status === 401 || api.status === 403))
        api.problem.resolution = `Nothing was saved. Log in again with \`wcm auth login --profile ${name}\`.`;
      throw err;
    }
    const wanted = opts.args[0];
    const w = reach.find((x) => x.id === wanted.toLowerCase() || x.name === wanted);
    if (!w)
      throw new UsageError(
        `\`${wanted}\` is not a workspace profile ${name}'s token reaches; nothing was saved.`,
        reach.length
          ? `It reaches: ${reach.map((x) => `${x.id} (${x.name})`).join(', ')}.`
          : 'It reaches no workspace: ask an owner to add you.',
      );
    await profiles.set(name, { ...profiles.get(name)!, workspace: w.id });
    f.io.stderr.write(`Profile ${name}: default workspace ${w.id} (${w.name}).\n`);
    return 0;
  },
});
