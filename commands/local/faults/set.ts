import { defineCommand } from '../../../src/cli/command.js';
import { controlRequest } from '../../../src/cli/control.js';
import { FAULT_FLAGS, faultRule, type FaultFlags } from '../../../src/cli/fault-rule.js';
import { printJson } from '../../../src/cli/output.js';

export default defineCommand<FaultFlags>({
  path: ['local', 'faults', 'set'],
  summary: "Make the running local server fail or slow down an operation (to test a client's retries)",
  description:
    'Replaces the fault rules with this one (`wcm local faults add` keeps the others). A fault answers a real\nproblem+json (Retry-After on 429 and 503), waits --latency first, or drops the connection (--drop).\nNever applied to the control plane.',
  options: FAULT_FLAGS,
  examples: [
    'wcm local faults set --operation listThreads --status 503 --probability 0.5',
    'wcm local faults set --operation "*" --latency 800',
  ],
  async run(opts, f) {
    const rules = await controlRequest(f, 'PUT', '/faults', [await faultRule(opts)]);
    if (f.globals.json) printJson(f.io.stdout, rules);
    else f.io.stderr.write(`Fault set for ${opts.operation}; \`wcm local faults clear\` removes it.\n`);
    return 0;
  },
});
