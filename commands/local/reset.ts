import { defineCommand } from '../../src/cli/command.js';
import { controlRequest } from '../../src/cli/control.js';
import { UsageError } from '../../src/cli/errors.js';
import type { Factory } from '../../src/cli/factory.js';
import { printFields, printJson } from '../../src/cli/output.js';

const CHOICES =
  '`seed` (what --seed loaded at first start), a snapshot name (`wcm local snapshot ls`), or `empty` (everything removed, users and tokens included)';

export default defineCommand<{ to?: string; yes?: boolean }>({
  path: ['local', 'reset'],
  summary: 'Reset the running local server: to its seed, to a snapshot, or to empty (atomic, durable)',
  description:
    'Talks to the running `wcm serve` (its control plane) with the admin token from the profile\n' +
    'or WCM_ADMIN_TOKEN. Idempotency records and rate limits start over too. Without --to, a terminal\n' +
    'asks which state (`empty` last, and confirmed); piped, --to is required.',
  options: [
    {
      flags: '--to <state>',
      description: '`seed`, a snapshot name, or `empty` (removes everything, users and tokens included)',
      complete: 'state',
    },
    { flags: '--yes', description: 'do not ask to confirm `empty`' },
  ],
  examples: ['wcm local reset --to seed', 'wcm local reset --to before-tests', 'wcm local reset --to empty --yes'],
  async run(opts, f) {
    const to = opts.to ?? (await askState(f));
    if (to === 'empty' && !opts.yes && f.io.canPrompt()) {
      const sure = await (
        await f.io.prompter()
      ).confirm({ message: 'Remove everything on the server, users and tokens included?', default: false });
      if (!sure) {
        f.io.stderr.write('Nothing was reset.\n');
        return 1;
      }
    }
    const r = await controlRequest<{ to: string; records: Record<string, number>; duration_ms: number }>(
      f,
      'POST',
      '/reset',
      { to },
    );
    if (f.globals.json) printJson(f.io.stdout, r);
    else
      await printFields(f.io, [
        ['reset to', r.to],
        [
          'records',
          Object.entries(r.records)
            .map(([k, v]) => `${v} ${k}`)
            .join(', ') || 'none',
        ],
        ['took', `${r.duration_ms} ms`],
      ]);
    await warnIfTokenGone(f);
    return 0;
  },
});

/**
 * A reset replaces the tokens too: when the profile in use held a token the new state does not
 * hold (`--to empty` always), say so, so the next command's exit 4 is no surprise.
 */
async function warnIfTokenGone(f: Factory): Promise<void> {
  const t = await f.target();
  if (!t.profile || !t.token || t.withheld || (t.storage !== 'file' && t.storage !== 'keychain')) return;
  const status = await (await f.client()).call('getMe').then(
    () => 200,
    (err: unknown) => (err as { status?: number }).status,
  );
  if (status !== 401) return;
  f.io.stderr.write(
    `warning: profile ${t.profile}'s token is not in the state the server was reset to, so commands with that profile now exit 4 (not logged in). ` +
      'Reset to a state that holds it, or stop the server and run `wcm local token` for a new owner token.\n',
  );
}

/** On a terminal, the state to reset to, chosen from the seed, the snapshots and (last) empty. */
async function askState(f: Factory): Promise<string> {
  // Wiping everything by default is what no one wants from a bare `wcm local reset` in a script.
  if (!f.io.canPrompt())
    throw new UsageError(`\`wcm local reset\` needs \`--to\`: ${CHOICES}.`, 'Example: `wcm local reset --to seed`.');
  const snapshots = await controlRequest<Array<{ name: string; saved_at: string }>>(f, 'GET', '/snapshots');
  return (await f.io.prompter()).select({
    message: 'Reset to',
    choices: [
      { name: 'seed', value: 'seed', description: 'what --seed loaded at first start' },
      ...snapshots.map((s) => ({ name: s.name, value: s.name, description: `snapshot saved ${s.saved_at}` })),
      { name: 'empty', value: 'empty', description: 'remove everything, users and tokens included' },
    ],
  });
}
