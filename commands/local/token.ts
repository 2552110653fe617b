import { defineCommand } from '../../src/cli/command.js';
import { CliError } from '../../src/cli/errors.js';
import { dataFileOf, dataOption, isLoopbackUrl, openEngine, storeOption, storeUrlOf } from '../../src/cli/local.js';

/** Where a saved token points until `wcm serve` re-points the profile at the port it really took. */
const DEFAULT_LOCAL_URL = 'http://127.0.0.1:4010/v1';

export default defineCommand<{ data?: string; store?: string; save?: boolean }>({
  path: ['local', 'token'],
  summary: 'Print a fresh owner token for a local data file (the way back into a store whose first token is lost)',
  description:
    "Adds an all-abilities token for the owner of the store's first workspace and prints it on stdout.\n" +
    'It is saved in profile `local` (or `--profile NAME`); the next `wcm serve` on the file points that\n' +
    'profile at itself. A profile that points at another host is refused: the token belongs to the local\n' +
    'server. Not while a server runs on the file: stop it first. With --store, on the\n' +
    'PostgreSQL store, while its servers run.',
  examples: [
    'wcm local token',
    'wcm local token --data /tmp/wcm.json --profile staging-copy',
    'wcm local token --no-save | pbcopy',
  ],
  options: [
    dataOption,
    storeOption,
    { flags: '--no-save', description: 'only print the token; keep the profiles as they are' },
  ],
  async run(opts, f) {
    const url = storeUrlOf(f, opts);
    const name = f.globals.profile || 'local';
    // The token is for the local server: a profile aimed at another host would send it there.
    const aimed = opts.save === false ? undefined : (await f.profiles()).get(name)?.base_url;
    if (aimed && !isLoopbackUrl(aimed))
      throw new CliError(
        `Profile \`${name}\` points at ${new URL(aimed).origin}, not at a server on this machine; a token of the local store is not saved there.`,
        1,
        'Pass `--profile NAME` with a new name (it will point at the local server), or `--no-save` to only print the token.',
      );
    const file = url ? 'the store' : dataFileOf(f, opts.data);
    if (!url) await checkFile(file);
    const db = await openEngine(f, { data: opts.data, url });
    let issued;
    try {
      issued = await (await import('../../src/server/serve.js')).issueOwnerToken(db);
    } finally {
      await db.close();
    }
    if (!issued)
      throw new CliError(
        `${file} has no workspace with an owner, so there is nobody to issue a token for.`,
        1,
        `Remove ${file} and run \`wcm serve\`: it creates an owner, a workspace and a token.`,
      );
    f.io.stdout.write(`${issued.token}\n`);
    if (opts.save === false) return 0;
    const profiles = await f.profiles();
    const credentials = await import('../../src/cli/credentials.js');
    const before = profiles.get(name);
    const currentBefore = profiles.current();
    const { token: _t, token_ref: _r, oauth: _o, ...rest } = before ?? { base_url: DEFAULT_LOCAL_URL };
    await credentials.saveProfileToken(
      profiles,
      name,
      { ...rest, workspace: issued.workspaceId },
      issued.token,
      await credentials.openKeychain(f.env),
    );
    await (await import('../../src/cli/config.js')).useWhenNoneCurrent(profiles, name, currentBefore, f.io.stderr);
    const origin = new URL(profiles.get(name)?.base_url ?? DEFAULT_LOCAL_URL).origin;
    f.io.stderr.write(
      `saved as profile \`${name}\` for ${origin} (workspace ${issued.workspaceId}): \`wcm serve${opts.data ? ` --data ${opts.data}` : ''}\` points it at the server, then \`wcm lists ls\` works\n`,
    );
    return 0;
  },
});

/** No server may hold the file, and it must exist: a missing one would be created empty, with nobody to issue a token for. */
async function checkFile(file: string): Promise<void> {
  const holder = await (await import('../../src/store/json/lock.js')).readLock(file);
  if (holder)
    throw new CliError(
      `A wcm server (pid ${holder.pid}) is running on ${file}; stop it (Ctrl-C) before adding a token.`,
      1,
      'Then run `wcm local token` again and start `wcm serve` once more.',
    );
  const { existsSync } = await import('node:fs');
  if (!existsSync(file) && !existsSync(`${file}.journal`))
    throw new CliError(`No data file at ${file}.`, 1, 'Pass `--data FILE`, or run `wcm serve` once to create one.');
}
