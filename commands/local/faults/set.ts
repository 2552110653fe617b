import { defineCommand } from '../../../src/cli/command.js';
import { controlRequest } from '../../../src/cli/control.js';
import { UsageError } from '../../../src/cli/errors.js';
import { printJson } from '../../../src/cli/output.js';

interface Options { operation?: string; status?: string; probability?: string; latency?: string; drop?: boolean }

export default defineCommand<Options>({
  path: ['local', 'faults', 'set'],
  summary: 'Make the running local server fail or slow down an operation (to test a client\'s retries)',
  description: 'Replaces the fault rules with this one. A fault answers a real problem+json (Retry-After on 429 and\n503), waits --latency first, or drops the connection (--drop). Never applied to the control plane.',
  options: [
    { flags: '--operation <id>', description: 'an operationId, or `*` for every operation' },
    { flags: '--status <code>', description: '429, 500, 502 or 503' },
    { flags: '--probability <p>', description: 'from 0 to 1 (default 1)' },
    { flags: '--latency <ms>', description: 'delay before answering (0 to 60000)' },
    { flags: '--drop', description: 'drop the connection instead of answering' },
  ],
  examples: ['wcm local faults set --operation listThreads --status 503 --probability 0.5', 'wcm local faults set --operation "*" --latency 800'],
  async run(opts, f) {
    if (!opts.operation) throw new UsageError('Missing `--operation` (an operationId, or `*`).');
    const num = (flag: string, v: string | undefined) => {
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isFinite(n) || v.trim() === '') throw new UsageError(`\`${flag}\` must be a number; received \`${v}\`.`);
      return n;
    };
    const rule = { operation: opts.operation, probability: num('--probability', opts.probability) ?? 1, status: num('--status', opts.status), latency_ms: num('--latency', opts.latency), reset: opts.drop || undefined };
    const rules = await controlRequest(f, 'PUT', '/faults', [rule]);
    if (f.globals.json) printJson(f.io.stdout, rules);
    else f.io.stderr.write(`Fault set for ${opts.operation}; \`wcm local faults clear\` removes it.\n`);
    return 0;
  },
});
