/** Lifetimes: codes 60 s, access tokens 1 h, refresh tokens 30 days (the last two beside the records they derive from). */
export const CODE_SECONDS = 60;
export { ACCESS_SECONDS, REFRESH_SECONDS } from '../../store/oauth-tokens.js';

/**
 * A time of the store's clock (`tx.now()`, epoch ms), plus some seconds, as the store writes times.
 * Every expiry and issue time is the store's, so processes sharing a database agree on them.
 */
export const iso = (nowMs: number, plusSeconds = 0) => new Date(nowMs + plusSeconds * 1000).toISOString();

/** Whether `at` (a stored time) has come, by the store's clock `nowMs`. */
export const isPast = (nowMs: number, at: string) => new Date(at).getTime() <= nowMs;
