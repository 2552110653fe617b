import { CLOCK_OFFSET_SETTING, offsetOf, type StoreEngine } from '../../store/engine/interface.js';
import { systemClock, type Clock } from '../context.js';

/**
 * The server's one clock, movable from the control plane (`PUT /_emulator/clock`). Its offset is
 * kept in the store only, the setting CLOCK_OFFSET_SETTING, which every engine's `tx.now()` adds to
 * its own clock: moving it moves every time a transaction reads (token expiry, OAuth codes,
 * idempotency retention, sessions, timestamps), and on PostgreSQL for every process on the
 * database. It runs on from wherever it was moved to.
 *
 * `now()` is synchronous (the request log's stamps, paths outside a transaction): it adds the
 * offset as this process last read or wrote it (at start, and whenever it moves the clock or reads
 * its state). On PostgreSQL, where another process may move it, a `now()` more than a second
 * after the last read also reads it again, in the background: the next ones add the new offset.
 */
export class MovableClock implements Clock {
  private cachedOffsetMs = 0;
  private db: StoreEngine | undefined;
  /** When the offset was last read (performance.now()), and whether a read of it is under way. */
  private readAt = 0;
  private refreshing = false;
  /** Moves by this process: a read begun before one must not put back the offset it replaced. */
  private moves = 0;
  constructor(private readonly base: Clock) {}

  /** Reads and writes the offset in `db`; reads it now. */
  async attach(db: StoreEngine): Promise<void> {
    this.db = db;
    await this.read();
  }

  private engine(): StoreEngine {
    if (!this.db) throw new Error('The clock is not attached to a store.');
    return this.db;
  }

  /** The store's time and the offset in it, as one transaction reads them (and the cached offset follows). */
  async read(): Promise<{ nowMs: number; offsetMs: number }> {
    const moves = this.moves;
    const out = await this.engine().read(async (tx) => ({
      nowMs: await tx.now(),
      offsetMs: offsetOf((await tx.get('settings', CLOCK_OFFSET_SETTING))?.value),
    }));
    if (moves === this.moves) {
      this.cachedOffsetMs = out.offsetMs;
      this.readAt = performance.now();
    }
    return out;
  }

  /** Reads the offset again in the background when another process may have moved it (see above). */
  private refresh(): void {
    if (this.db?.kind !== 'postgres' || this.refreshing || performance.now() - this.readAt < 1000) return;
    this.refreshing = true;
    this.read()
      .catch(() => (this.readAt = performance.now()))
      .finally(() => (this.refreshing = false));
  }

  private async write(ms: number): Promise<void> {
    await this.engine().write((tx) => tx.put('settings', { id: CLOCK_OFFSET_SETTING, value: ms }));
    this.moves++;
    this.cachedOffsetMs = ms;
    this.readAt = performance.now();
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** The time in ms, without a Date when the base clock is the system's (the request log's per-request stamp). */
  nowMs(): number {
    this.refresh();
    return (this.base === systemClock ? Date.now() : this.base.now().getTime()) + this.cachedOffsetMs;
  }

  /** The unmoved time in ms of this process (what the JSON engine's `tx.now()` adds the offset to). */
  baseMs(): number {
    return this.base.now().getTime();
  }

  setOffset(seconds: number): Promise<void> {
    return this.write(seconds * 1000);
  }

  reset(): Promise<void> {
    return this.write(0);
  }

  /** What `GET /_emulator/clock` answers: the store's time now and the offset from real time. */
  async state(): Promise<{ now: string; offset_seconds: number }> {
    const { nowMs, offsetMs } = await this.read();
    return { now: new Date(nowMs).toISOString(), offset_seconds: Math.round(offsetMs / 1000) };
  }
}
