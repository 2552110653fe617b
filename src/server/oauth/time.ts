import type { Clock } from '../clock.js';

/** Lifetimes: codes 60 s, access tokens 1 h, refresh tokens 30 days (the last two beside the records they derive from). */
export const CODE_SECONDS = 60;
export { ACCESS_SECONDS, REFRESH_SECONDS } from '../../store/oauth-tokens.js';

/** The clock's now, plus some seconds, as the store writes times. */
export const iso = (clock: Clock, plusSeconds = 0) =>
  new Date(clock.now().getTime() + plusSeconds * 1000).toISOString();

export const isPast = (clock: Clock, at: string) => new Date(at).getTime() <= clock.now().getTime();
