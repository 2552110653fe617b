/** The server's time: a real clock, or the emulator's movable one (emulator/clock.ts). */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** The clock's time as the API writes timestamps (ISO 8601, UTC, milliseconds). */
export const timestamp = (clock: Clock): string => isoTime(clock.now());

let isoSecond = NaN;
let isoPrefix = '';
/**
 * `d.toISOString()`, formatted once per second: within the same second only the milliseconds
 * change. (V8 formats every call through snprintf: about a microsecond, once per write.)
 */
export function isoTime(d: Date): string {
  const ms = d.getTime();
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    // An invalid date throws here, as toISOString does.
    const full = d.toISOString();
    isoSecond = second;
    isoPrefix = full.slice(0, -4);
    return full;
  }
  const frac = ms - second * 1000;
  return `${isoPrefix}${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}Z`;
}
