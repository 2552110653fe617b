import { defineCommand } from '../../src/cli/command.js';
import { controlRequest } from '../../src/cli/control.js';
import { printFields, printJson } from '../../src/cli/output.js';

export default defineCommand<{ to?: string }>({
  path: ['local', 'reset'],
  summary: 'Reset the running local server: to empty, to its seed, or to a snapshot (atomic, durable)',
  description: 'Talks to the running `wcm serve` (its control plane) with the admin token from profile `local`\nor WCM_ADMIN_TOKEN. Idempotency records and rate limits start over too.',
  options: [{ flags: '--to <state>', description: '`empty` (default), `seed` (what --seed loaded at first start) or a snapshot name' }],
  examples: ['wcm local reset', 'wcm local reset --to seed', 'wcm local reset --to before-tests'],
  async run(opts, f) {
    const r = await controlRequest<{ to: string; records: Record<string, number>; duration_ms: number }>(f, 'POST', '/reset', { to: opts.to ?? 'empty' });
    if (f.globals.json) printJson(f.io.stdout, r);
    else await printFields(f.io, [['reset to', r.to], ['records', Object.entries(r.records).map(([k, v]) => `${v} ${k}`).join(', ') || 'none'], ['took', `${r.duration_ms} ms`]]);
    return 0;
  },
});
