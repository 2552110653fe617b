import { UsageError } from './errors.js';

/** A fault rule as `PUT /_emulator/faults` takes it (README: Controlling a running server). */
export interface FaultRule {
  operation: string;
  probability: number;
  status?: number;
  latency_ms?: number;
  reset?: boolean;
}

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

/** One rule from the flags; the server checks the ranges (and names the member when one is wrong). */
export function faultRule(opts: FaultFlags): FaultRule {
  if (!opts.operation) throw new UsageError('Missing `--operation` (an operationId, or `*`).');
  const num = (flag: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || v.trim() === '')
      throw new UsageError(`\`${flag}\` must be a number; received \`${v}\`.`);
    return n;
  };
  return {
    operation: opts.operation,
    probability: num('--probability', opts.probability) ?? 1,
    status: num('--status', opts.status),
    latency_ms: num('--latency', opts.latency),
    reset: opts.drop || undefined,
  };
}

/** The rules as `wcm local faults ls` shows them. */
export const FAULT_COLUMNS = [
  { header: 'OPERATION', value: (r: FaultRule) => r.operation },
  { header: 'STATUS', value: (r: FaultRule) => (r.reset ? 'drop' : r.status !== undefined ? String(r.status) : '-') },
  { header: 'PROBABILITY', value: (r: FaultRule) => String(r.probability) },
  { header: 'LATENCY', value: (r: FaultRule) => (r.latency_ms ? `${r.latency_ms} ms` : '-') },
];
