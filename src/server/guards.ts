import type { AnyOperation } from '../contract/operations.js';
import type { RequestInfo } from './request.js';
import type { AppResponse } from './response.js';

/**
 * Hooks around public operations (rate limits, idempotency). `around` wraps the handler call;
 * `headers` adds headers to every response of the operation.
 */
export interface PublicGuard {
  before?(op: AnyOperation, req: RequestInfo): { headers?: Record<string, string> } | void;
  around?(op: AnyOperation, req: RequestInfo, run: () => Promise<AppResponse>): Promise<AppResponse>;
}
