import { defineCommand } from '../../../src/cli/command.js';
import { controlRequest } from '../../../src/cli/control.js';
import { FAULT_FLAGS, faultRule, type FaultFlags, type FaultRule } from '../../../src/cli/fault-rule.js';
import { printJson } from '../../../src/cli/output.js';

export default defineCommand<FaultFlags>({
  path: ['local', 'faults', 'add'],
  summary: 'Add a fault rule to the running local server, keeping the rules in force',
  description:
    'Like `wcm local faults set`, but the new rule goes after the ones in force (the first matching rule\napplies). `wcm local faults ls` shows them; `clear` removes them all.',
  options: FAULT_FLAGS,
  examples: [
    'wcm local faults add --operation getThread --status 500 --probability 0.1',
    'wcm local faults add --operation "*" --latency 300',
  ],
  async run(opts, f) {
    const rule = await faultRule(opts);
    const current = await controlRequest<FaultRule[]>(f, 'GET', '/faults');
    const rules = await controlRequest<FaultRule[]>(f, 'PUT', '/faults', [...current, rule]);
    if (f.globals.json) printJson(f.io.stdout, rules);
    else
      f.io.stderr.write(
        `Fault added for ${opts.operation}; ${rules.length} rule${rules.length === 1 ? '' : 's'} in force (\`wcm local faults ls\`).\n`,
      );
    return 0;
  },
});
