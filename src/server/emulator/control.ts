import { randomBytes } from 'node:crypto';
import { getOperation } from '../../contract/operations.js';
import { ConflictError, type StoreEngine } from '../../store/engine/interface.js';
import type { AppResponse } from '../app.js';
import type { RequestInfo } from '../context.js';
import { ProblemError, validationFailed } from '../problems.js';
import type { MovableClock } from './clock.js';
import type { LogFilter, RequestLog } from './log.js';

export const CONTROL = '/_emulator';
const ADMIN_SETTING = 'emulator.admin_token';

/**
 * The admin token: WCM_ADMIN_TOKEN, else the one kept in the store, else a new one (kept). Of
 * processes starting together on one database, one creates it (tx.create) and the others read it.
 */
export async function adminToken(
  db: StoreEngine,
  env: NodeJS.ProcessEnv,
): Promise<{ token: string; source: 'env' | 'stored' | 'generated' }> {
  if (env.WCM_ADMIN_TOKEN) return { token: env.WCM_ADMIN_TOKEN, source: 'env' };
  const stored = async () => {
    const kept = (await db.read((tx) => tx.get('settings', ADMIN_SETTING)))?.value;
    return typeof kept === 'string' && kept ? kept : undefined;
  };
  const kept = await stored();
  if (kept) return { token: kept, source: 'stored' };
  const made = `wcm_admin_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`;
  try {
    return await db.write(async (tx) => {
      const there = await tx.get('settings', ADMIN_SETTING);
      if (typeof there?.value === 'string' && there.value) return { token: there.value, source: 'stored' as const };
      // Absent: created (another process creating it first is a ConflictError); there but empty: replaced.
      if (there === undefined) await tx.create('settings', { id: ADMIN_SETTING, value: made });
      else await tx.put('settings', { id: ADMIN_SETTING, value: made });
      return { token: made, source: 'generated' as const };
    });
  } catch (err) {
    const winner = err instanceof ConflictError ? await stored() : undefined;
    if (!winner) throw err;
    return { token: winner, source: 'stored' };
  }
}

/** A fault rule (docs/server.md: Controlling a running server). */
export interface FaultRule {
  operation: string;
  probability: number;
  status?: number;
  latency_ms?: number;
  reset?: boolean;
}

export interface ControlOptions {
  db: StoreEngine;
  clock: MovableClock;
  log: RequestLog;
  admin: string;
  faults: FaultRule[];
  /** The payment-notification signing secret, for `wcm payments simulate` against this server. */
  webhookSecret?: string;
  /** Called after a reset: idempotency replays and rate-limit buckets start over too. */
  afterReset(): Promise<void> | void;
}

export function readJson(info: RequestInfo): unknown {
  if (!info.rawBody.length) return {};
  try {
    return JSON.parse(info.rawBody.toString('utf8'));
  } catch {
    throw new ProblemError('invalid_json', { detail: 'The body is not valid JSON.' });
  }
}

const FAULT_STATUSES = [429, 500, 502, 503];

/** Checks a `PUT /_emulator/faults` body: a list of rules, every member named and in range. */
export function parseFaults(body: unknown): FaultRule[] {
  if (!Array.isArray(body)) throw validationFailed({ '': ['Must be a list of fault rules.'] });
  const errors: Record<string, string[]> = {};
  const rules = body.map((r, i) => {
    const at = (k: string, m: string) => ((errors[`${i}.${k}`] ??= []).push(m), undefined);
    if (!r || typeof r !== 'object' || Array.isArray(r)) return at('', 'Must be an object.') as never;
    const rule = r as Record<string, unknown>;
    for (const k of Object.keys(rule))
      if (!['operation', 'probability', 'status', 'latency_ms', 'reset'].includes(k)) at(k, 'Unknown member.');
    if (typeof rule.operation !== 'string' || (rule.operation !== '*' && !getOperation(rule.operation)))
      at('operation', 'Must be an operationId of the table, or `*`.');
    const p = rule.probability ?? 1;
    if (typeof p !== 'number' || !(p >= 0 && p <= 1)) at('probability', 'Must be a number from 0 to 1.');
    if (rule.status !== undefined && !FAULT_STATUSES.includes(rule.status as number))
      at('status', `Must be one of ${FAULT_STATUSES.join(', ')}.`);
    if (
      rule.latency_ms !== undefined &&
      !(Number.isInteger(rule.latency_ms) && (rule.latency_ms as number) >= 0 && (rule.latency_ms as number) <= 60_000)
    )
      at('latency_ms', 'Must be an integer from 0 to 60000.');
    if (rule.reset !== undefined && typeof rule.reset !== 'boolean') at('reset', 'Must be true or false.');
    if (rule.status === undefined && rule.latency_ms === undefined && !rule.reset)
      at('status', 'A rule needs a `status`, a `latency_ms` or `reset: true`.');
    return {
      operation: rule.operation as string,
      probability: p as number,
      status: rule.status as number | undefined,
      latency_ms: rule.latency_ms as number | undefined,
      reset: rule.reset as boolean | undefined,
    };
  });
  if (Object.keys(errors).length) throw validationFailed(errors);
  return rules;
}

/** The fault an operation gets now, if a rule applies (first matching rule, by its probability). */
export async function injectFault(rules: readonly FaultRule[], operationId: string): Promise<AppResponse | undefined> {
  const rule = rules.find((r) => (r.operation === '*' || r.operation === operationId) && Math.random() < r.probability);
  if (!rule) return undefined;
  if (rule.latency_ms) await new Promise((r) => setTimeout(r, rule.latency_ms));
  if (rule.reset) return { status: 0, headers: {}, body: '', drop: true };
  if (!rule.status) return undefined;
  const code =
    rule.status === 429
      ? 'rate_limited'
      : rule.status === 503
        ? 'service_unavailable'
        : rule.status === 502
          ? 'payment_provider_error'
          : 'internal_error';
  // The title and resolution say what this is: a failure injected on purpose, not a real one (the
  // 503 kind's own resolution speaks of a server shutting down).
  throw new ProblemError(code as never, {
    title: 'Injected fault',
    detail: `Injected by the emulator's fault rules for \`${rule.operation}\` (\`wcm local faults clear\` removes them).`,
    resolution: `A fault rule of this local server answered ${rule.status}${rule.probability < 1 ? ` (probability ${rule.probability})` : ''}; nothing failed for real. \`wcm local faults ls\` shows the rules, \`wcm local faults clear\` removes them.`,
    headers: rule.status === 429 || rule.status === 503 ? { 'Retry-After': '1' } : {},
  });
}

/** The farthest the clock may move either way: further, dates overflow and expiry checks stop meaning anything. */
export const MAX_CLOCK_OFFSET_SECONDS = 10 * 366 * 86_400;

/**
 * The offset (seconds) a `PUT /_emulator/clock` body asks for, checked before it is used: finite,
 * within ±10 years of the real time and not before 1970. Anything else is a 422 and the clock stays.
 */
export function clockOffset(body: unknown, realMs: number): number {
  const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as {
    offset_seconds?: unknown;
    now?: unknown;
  };
  let seconds: number;
  let field: 'now' | 'offset_seconds';
  if (typeof b.now === 'string' && b.offset_seconds === undefined) {
    const at = new Date(b.now);
    if (Number.isNaN(at.getTime()) || at.getTime() < 0 || !/^\d{4}-\d\d-\d\dT/.test(b.now))
      throw validationFailed({ now: ['Must be an ISO 8601 time at or after 1970-01-01T00:00:00Z.'] });
    seconds = (at.getTime() - realMs) / 1000;
    field = 'now';
  } else if (typeof b.offset_seconds === 'number' && b.now === undefined) {
    if (!Number.isFinite(b.offset_seconds))
      throw validationFailed({ offset_seconds: ['Must be a finite number of seconds.'] });
    seconds = b.offset_seconds;
    field = 'offset_seconds';
  } else {
    throw validationFailed({ '': ['Send {"offset_seconds": N} or {"now": "ISO time"}.'] });
  }
  if (Math.abs(seconds) > MAX_CLOCK_OFFSET_SECONDS)
    throw validationFailed({
      [field]: [
        `Must be within 10 years of the real time (an offset of at most ±${MAX_CLOCK_OFFSET_SECONDS} seconds).`,
      ],
    });
  if (realMs + seconds * 1000 < 0) throw validationFailed({ [field]: ['Would move the clock before 1970.'] });
  return seconds;
}

export function logFilter(url: URL): LogFilter {
  const f: LogFilter = {};
  const limit = url.searchParams.get('limit');
  if (limit !== null) {
    if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 10_000)
      throw validationFailed({ limit: ['Must be an integer from 1 to 10000.'] }, 'Invalid query parameters.');
    f.limit = Number(limit);
  }
  const since = url.searchParams.get('since');
  if (since !== null) {
    if (!/^\d+$/.test(since))
      throw validationFailed(
        { since: ['Must be a sequence number (`seq` of a logged request).'] },
        'Invalid query parameters.',
      );
    f.since = Number(since);
  }
  const status = url.searchParams.get('status');
  if (status !== null) {
    if (!/^([1-5]xx|[1-5]\d\d)$/i.test(status))
      throw validationFailed({ status: ['Must be like 404 or 4xx.'] }, 'Invalid query parameters.');
    f.status = status.toLowerCase();
  }
  const operation = url.searchParams.get('operation');
  if (operation !== null) {
    if (!getOperation(operation))
      throw validationFailed({ operation: ['Must be an operationId of the table.'] }, 'Invalid query parameters.');
    f.operation = operation;
  }
  const all = url.searchParams.get('all');
  if (all !== null) {
    if (!['true', 'false', '1', '0', ''].includes(all))
      throw validationFailed({ all: ['Must be true or false.'] }, 'Invalid query parameters.');
    f.all = all === 'true' || all === '1' || all === '';
  }
  return f;
}

declare module '../context.js' {
  interface Services {
    /** The control plane's admin token. */
    adminToken?: string;
  }
}
