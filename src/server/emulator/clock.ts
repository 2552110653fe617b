import { systemClock, type Clock } from '../context.js';

/**
 * The server's one clock, movable from the control plane (`PUT /_emulator/clock`): every
 * time-dependent path (token expiry, OAuth codes, idempotency retention, sessions, timestamps)
 * reads this object, so moving it moves them all. It runs on from wherever it was moved to.
 */
export class MovableClock implements Clock {
  private offsetMs = 0;
  constructor(private readonly base: Clock) {}

  now(): Date {
    return new Date(this.nowMs());
  }

  /** The time in ms, without a Date when the base clock is the system's (the request log's per-request stamp). */
  nowMs(): number {
    return (this.base === systemClock ? Date.now() : this.base.now().getTime()) + this.offsetMs;
  }

  setOffset(seconds: number): void {
    this.offsetMs = seconds * 1000;
  }

  /** The unmoved time in ms: what an offset is measured from. */
  baseMs(): number {
    return this.base.now().getTime();
  }

  reset(): void {
    this.offsetMs = 0;
  }

  get state(): { now: string; offset_seconds: number } {
    return { now: this.now().toISOString(), offset_seconds: Math.round(this.offsetMs / 1000) };
  }
}
