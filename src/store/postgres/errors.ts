import { StoreUnavailableError } from '../engine/interface.js';

/** Connection-level failures, by the client's code or PostgreSQL's SQLSTATE (classes 08 and 57P, 53300). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

export function isUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return NETWORK_CODES.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '53300';
}

/** Runs `fn`; a connection failure becomes a StoreUnavailableError. */
export async function unavailable<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StoreUnavailableError || !isUnavailable(err)) throw err;
    throw new StoreUnavailableError((err as { code: string }).code);
  }
}
