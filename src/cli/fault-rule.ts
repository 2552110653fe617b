import { UsageError } from './errors.js';
import type { FaultRule } from '../server/emulator/control.js';

/** A fault rule as `PUT /_emulator/faults` takes it (README: Controlling a running server). */
export type { FaultRule };

export interface FaultFlags {
  operation?: string;
  status?: string;
  probability?: string;
  latency?: string;
  drop?: boolean;
}

/** The flags of `wcm local faults set` and `add`, which take one rule each. */
export const FAULT_FLAGS = [
  { flags: '--operation <id>', description: 'an operationId, or `*` for every operation' },
  { flags: '--status <code>', description: '429, 500, 502 or 503' },
  { flags: '--probability <p>', description: 'from 0 to 1 (default 1)' },
  { flags: '--latency <ms>', description: 'delay before answering (0 to 60000)' },
  { flags: '--drop', description: 'drop the connection instead of answering' },
];

const FAULT_STATUSES = [429, 500, 502, 503];

/**
 * One rule from the flags, checked here so a mistake names its flag (`--operation`), not the
 * server's place in the rule list (`0.operation`). The server checks again.
 */
export async function faultRule(opts: FaultFlags): Promise<FaultRule> {
  if (!opts.operation) throw new UsageError('Missing `--operation` (an operationId, or `*`).');
  if (opts.operation !== '*') {
    const { routes, routeOf } = await import('../contract/table.js');
    if (!routeOf(opts.operation)) {
      const near = Object.keys(routes).filter((id) =>
        id.toLowerCase().includes(opts.operation!.toLowerCase().slice(0, 6)),
      );
      throw new UsageError(
        `\`--operation ${opts.operation}\` is not an operationId.`,
        near.length
          ? `Did you mean ${near
              .slice(0, 5)
              .map((id) => `\`${id}\``)
              .join(', ')}? (\`*\` is every operation; \`wcm openapi\` lists them.)`
          : 'Pass an operationId such as `listThreads`, or `*` for every operation (`wcm openapi` lists them).',
      );
    }
  }
  const num = (flag: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || v.trim() === '')
      throw new UsageError(`\`${flag}\` must be a number; received \`${v}\`.`);
    return n;
  };
  const rule = {
    operation: opts.operation,
    probability: num('--probability', opts.probability) ?? 1,
    status: num('--status', opts.status),
    latency_ms: num('--latency', opts.latency),
    reset: opts.drop || undefined,
  };
  if (rule.status !== undefined && !FAULT_STATUSES.includes(rule.status))
    throw new UsageError(`\`--status\` must be one of ${FAULT_STATUSES.join(', ')}; received \`${opts.status}\`.`);
  if (!(rule.probability >= 0 && rule.probability <= 1))
    throw new UsageError(`\`--probability\` must be from 0 to 1; received \`${opts.probability}\`.`);
  if (
    rule.latency_ms !== undefined &&
    !(Number.isInteger(rule.latency_ms) && rule.latency_ms >= 0 && rule.latency_ms <= 60_000)
  )
    throw new UsageError(
      `\`--latency\` must be a whole number of milliseconds from 0 to 60000; received \`${opts.latency}\`.`,
    );
  if (rule.status === undefined && rule.latency_ms === undefined && !rule.reset)
    throw new UsageError(
      'A fault needs `--status`, `--latency` or `--drop`.',
      'Example: --operation listThreads --status 503',
    );
  return rule;
}

/** The rules as `wcm local faults ls` shows them. */
export const FAULT_COLUMNS = [
  { header: 'OPERATION', value: (r: FaultRule) => r.operation },
  { header: 'STATUS', value: (r: FaultRule) => (r.reset ? 'drop' : r.status !== undefined ? String(r.status) : '-') },
  { header: 'PROBABILITY', value: (r: FaultRule) => String(r.probability) },
  { header: 'LATENCY', value: (r: FaultRule) => (r.latency_ms ? `${r.latency_ms} ms` : '-') },
];
