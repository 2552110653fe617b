import type { Clock } from '../context.js';

/** Lifetimes: codes 60 s, access tokens 1 h, refresh tokens 30 days. */
export const CODE_SECONDS = 60;
export const ACCESS_SECONDS = 3600;
export const REFRESH_SECONDS = 30 * 24 * 3600;

/** The clock's now, plus some seconds, as the store writes times. */
export const iso = (clock: Clock, plusSeconds = 0) =>
  new Date(clock.now().getTime() + plusSeconds * 1000).toISOString();

export const isPast = (clock: Clock, at: string) => new Date(at).getTime() <= clock.now().getTime();
