import { defineCommand } from '../../src/cli/command.js';
import { controlRequest } from '../../src/cli/control.js';
import { printFields, printJson } from '../../src/cli/output.js';

export default defineCommand({
  path: ['local', 'clock'],
  summary: "Show the running local server's clock: its time now and its offset from real time",
  description: 'Move it with `wcm local clock set`, back to real time with `wcm local clock clear`.',
  examples: ['wcm local clock', 'wcm local clock --json'],
  async run(_opts, f) {
    const r = await controlRequest<{ now: string; offset_seconds: number }>(f, 'GET', '/clock');
    if (f.globals.json) return printJson(f.io.stdout, r);
    await printFields(f.io, [
      ['now', r.now],
      ['offset', r.offset_seconds ? `${r.offset_seconds} s` : '0 s (real time)'],
    ]);
  },
});
