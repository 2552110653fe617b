import { defineCommand } from '../../../src/cli/command.js';
import { controlRequest } from '../../../src/cli/control.js';
import { UsageError } from '../../../src/cli/errors.js';
import { printFields, printJson } from '../../../src/cli/output.js';

export default defineCommand<{ offset?: string; now?: string }>({
  path: ['local', 'clock', 'set'],
  summary: "Move the running local server's clock (token expiry, OAuth codes, idempotency, timestamps)",
  options: [
    { flags: '--offset <seconds>', description: 'seconds from real time (negative goes back)' },
    { flags: '--now <time>', description: 'an ISO 8601 time to move to; the clock runs on from there' },
  ],
  examples: ['wcm local clock set --offset 3600', 'wcm local clock set --now 2027-01-01T00:00:00Z'],
  async run(opts, f) {
    if ((opts.offset === undefined) === (opts.now === undefined))
      throw new UsageError('Give exactly one of `--offset` or `--now`.');
    let body: Record<string, unknown>;
    if (opts.offset !== undefined) {
      const n = Number(opts.offset);
      if (!Number.isFinite(n) || opts.offset.trim() === '')
        throw new UsageError(`\`--offset\` must be a number of seconds; received \`${opts.offset}\`.`);
      body = { offset_seconds: n };
    } else body = { now: opts.now };
    const r = await controlRequest<{ now: string; offset_seconds: number }>(f, 'PUT', '/clock', body);
    if (f.globals.json) printJson(f.io.stdout, r);
    else
      await printFields(f.io, [
        ['now', r.now],
        ['offset', `${r.offset_seconds} s`],
      ]);
    return 0;
  },
});
