import { defineCommand } from '../../../src/cli/command.js';
import { controlRequest } from '../../../src/cli/control.js';
import { FAULT_COLUMNS, type FaultRule } from '../../../src/cli/fault-rule.js';
import { printJson, printRows } from '../../../src/cli/output.js';

export default defineCommand({
  path: ['local', 'faults', 'ls'],
  output: ['operation', 'probability', 'status', 'latency_ms', 'reset'],
  summary: 'List the fault rules in force on the running local server, in the order they apply',
  description:
    'Piped output is tab-separated: operation, status (or drop, or - for latency only), probability, latency\n(or -).',
  examples: ['wcm local faults ls', 'wcm local faults ls --json'],
  async run(_opts, f) {
    const rules = await controlRequest<FaultRule[]>(f, 'GET', '/faults');
    if (f.globals.json) return printJson(f.io.stdout, rules);
    if (!rules.length) {
      f.io.stderr.write('No faults: every operation answers normally. Add one with `wcm local faults add`.\n');
      return 0;
    }
    await printRows(f.io, rules, FAULT_COLUMNS);
  },
});
