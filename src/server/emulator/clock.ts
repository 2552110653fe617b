import type { Store } from '../../store/store.js';
import { systemClock, type Clock } from '../context.js';

const CLOCK_SETTING = 'emulator.clock_offset_ms';

/**
 * The server's one clock, movable from the control plane (`PUT /_emulator/clock`): every
 * time-dependent path (token expiry, OAuth codes, idempotency retention, sessions, timestamps)
 * reads this object, so moving it moves them all. It runs on from wherever it was moved to.
 */
export class MovableClock implements Clock {
  private ownOffsetMs = 0;
  /** On PostgreSQL: the offset is a setting in the store, so moving the clock moves it for every process. */
  private shared: Store | undefined;
  constructor(private readonly base: Clock) {}

  /** Keeps the offset in `store` (read on every tick: a map lookup), for every process on it. */
  share(store: Store): void {
    this.shared = store;
  }

  private get offsetMs(): number {
    if (!this.shared) return this.ownOffsetMs;
    const v = this.shared.get('settings', CLOCK_SETTING)?.value;
    return typeof v === 'number' ? v : 0;
  }

  private async write(ms: number): Promise<void> {
    this.ownOffsetMs = ms;
    if (this.shared) await this.shared.transact((tx) => tx.put('settings', { id: CLOCK_SETTING, value: ms }));
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** The time in ms, without a Date when the base clock is the system's (the request log's per-request stamp). */
  nowMs(): number {
    return (this.base === systemClock ? Date.now() : this.base.now().getTime()) + this.offsetMs;
  }

  setOffset(seconds: number): Promise<void> {
    return this.write(seconds * 1000);
  }

  /** The unmoved time in ms: what an offset is measured from. */
  baseMs(): number {
    return this.base.now().getTime();
  }

  reset(): Promise<void> {
    return this.write(0);
  }

  get state(): { now: string; offset_seconds: number } {
    return { now: this.now().toISOString(), offset_seconds: Math.round(this.offsetMs / 1000) };
  }
}
