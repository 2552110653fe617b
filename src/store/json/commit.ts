import { SYNC_SLOTS, type FileLayer, type JournalHandle } from './files.js';
import { encodeBatch, type Entry } from './journal.js';
import type { Compaction } from './compaction.js';
import type { Op, State } from './state.js';

/** A transaction applied in memory, waiting to be made durable. */
export interface Pending extends Entry {
  undo: Op[];
  resolve(): void;
  reject(err: unknown): void;
}

/** One batch in the pipeline: written after the batch before it, then synced. */
interface Flight {
  batch: Pending[];
  /** Journal offset of its first byte: where the file is cut back to if it fails. */
  start: number;
  /** Journal offset just past its last byte: everything before it is durable once it is acknowledged. */
  end: number;
  idx: number;
  state: 'running' | 'ok' | 'failed';
  err?: unknown;
  /**
   * How many durable writes had been started when this one succeeded. Concurrent syncs of one
   * file (through one description) report a writeback error to whichever checks first, so a write
   * that ran alongside this one may have taken the error for this batch's pages: it is
   * acknowledged only once those succeeded too (unless the layer has independentSyncs).
   */
  barrier: number;
  /** Never rejects. */
  settled: Promise<void>;
}

/**
 * Batches being made durable at once, at most: one per thread of libuv's pool that can run a
 * write (UV_THREADPOOL_SIZE, 4 unless set; `wcm serve` sets 1), and no more than the journal's
 * write slots. A batch started while every thread is busy would only wait in the pool's queue,
 * sealed: what arrives meanwhile would go into yet another batch and another disk flush. With
 * one thread and depth 1, a batch takes everything that arrived during the write before it.
 */
export function defaultPipelineDepth(env: NodeJS.ProcessEnv = process.env): number {
  const threads = Number(env.UV_THREADPOOL_SIZE);
  return Number.isInteger(threads) && threads >= 1 ? Math.min(threads, SYNC_SLOTS) : SYNC_SLOTS;
}

/** What the pipeline needs of the store. */
export interface CommitHost {
  readonly files: FileLayer;
  readonly journalFile: string;
  /** Batches in flight at once, 1 to SYNC_SLOTS. */
  readonly depth: number;
  readonly compaction: Compaction;
  /** close() has begun: no compaction beside the writes (close compacts anyway). */
  closing(): boolean;
  /** Undoes `failed` (in seq order) in reverse and rejects them all. */
  fail(failed: Pending[], err: unknown): void;
}

/**
 * Group commit, pipelined: transactions arriving while a batch is being written join the next
 * batch; while a batch is being made durable, the next batches are written after it (each in its
 * own place, taken in seq order), up to `depth` in flight. The store hands transactions in
 * (`take`), and each is acknowledged (resolved) or failed (undone and rejected) strictly in order.
 */
export class Committer {
  journal: JournalHandle | null = null;
  private pending: Pending[] = [];
  private flushing: Promise<void> | null = null;
  /** Wakes the loop (a batch settled, transactions arrived, or a compaction is ready). */
  private wake: (() => void) | null = null;
  private kickScheduled = false;
  /**
   * After a failed write whose clean-up did not finish: the offset the journal must be cut back to
   * before anything else is written (bytes past it may remain).
   */
  private cutTo: number | null = null;

  constructor(private readonly host: CommitHost) {}

  /** Takes a transaction: it is written with the next batch. */
  take(p: Pending): void {
    this.pending.push(p);
    if (this.flushing) this.kick();
    else this.flushing = this.flush();
  }

  /** Settles when everything taken so far was acknowledged or failed; undefined when idle. */
  get busy(): Promise<void> | undefined {
    return this.flushing ?? undefined;
  }

  /** Lets the loop run (a compaction beside the writes is ready to swap the journal). */
  poke(): void {
    if (this.flushing) this.wake?.();
    else this.flushing = this.flush();
  }

  /** Runs `work` with writes held: transactions taken meanwhile wait, and are written after it. */
  async hold(work: Promise<void>): Promise<void> {
    this.flushing = work.then(
      () => undefined,
      () => undefined,
    );
    try {
      await work;
    } finally {
      this.flushing = null;
      if (this.pending.length) this.flushing = this.flush();
    }
  }

  /** Hands over the transactions waiting to be written, without writing or undoing them (the store reads its state back from disk). */
  dropPending(): Pending[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  /** The journal was emptied (a compaction wrote everything to the snapshot): a cut still pending points past its end, and is dropped. */
  emptied(): void {
    this.cutTo = null;
  }

  /** Lets a waiting loop take new transactions, after the ones from this turn joined them. */
  private kick(): void {
    if (this.kickScheduled) return;
    this.kickScheduled = true;
    setImmediate(() => {
      this.kickScheduled = false;
      this.wake?.();
    });
  }

  private failPending(err: unknown): void {
    const failed = this.pending;
    this.pending = [];
    this.host.fail(failed, err);
  }

  private async flush(): Promise<void> {
    await new Promise<void>((r) => setImmediate(r));
    try {
      if (!this.journal) {
        // A journal replacement whose reopen failed (swap): try again, else refuse the writes.
        try {
          this.journal = await this.host.files.openJournal(this.host.journalFile);
        } catch (err) {
          this.failPending(err);
          return;
        }
      }
      await this.run(this.journal);
    } finally {
      this.flushing = null;
      // Transactions (or a finished compaction) that arrived after the loop's last look, whose
      // kick found no loop waiting: start again rather than leave them until the next write.
      if (this.pending.length || this.host.compaction.ready) this.flushing = this.flush();
    }
  }

  /**
   * Acknowledgements stay in seq order: a batch resolves only once its own write and every earlier
   * batch's succeeded (and every write that ran alongside its own, see Flight.barrier). If batch k
   * fails, k and everything after it (in flight or queued) is undone in reverse order and
   * rejected, and once the in-flight writes settled the journal is cut back to k's start.
   * (A crash can leave later batches on disk without k: each line's `d` lets recovery drop them.)
   */
  private async run(journal: JournalHandle): Promise<void> {
    const { compaction } = this.host;
    let j = journal;
    const inflight: Flight[] = [];
    /** Batches started so far (each flight's idx is its place in this count). */
    let nextIdx = 0;
    let end = j.size;
    /** Everything before this offset is durable: the journal as found, then each batch acknowledged. */
    let durable = j.size;
    for (;;) {
      // Start batches while there is room. A compaction's snapshot is durable: start nothing more
      // until the journal is replaced (below).
      while (this.pending.length && inflight.length < this.host.depth && !compaction.ready) {
        if (!inflight.length) {
          if (this.cutTo !== null) {
            try {
              await j.truncate(this.cutTo);
              this.cutTo = null;
            } catch (err) {
              this.failPending(err);
              continue;
            }
          }
          end = durable = j.size;
        }
        const batch = this.pending;
        this.pending = [];
        const buf = encodeBatch(batch, durable);
        const f: Flight = {
          batch,
          start: end,
          end: end + buf.length,
          idx: nextIdx++,
          state: 'running',
          barrier: 0,
          settled: Promise.resolve(),
        };
        end += buf.length;
        compaction.wrote(f.start, buf);
        const written = j;
        f.settled = written
          .writeDurable(buf)
          .then(
            () => {
              f.state = 'ok';
              // Writes that report their errors independently cover this batch by themselves.
              f.barrier = written.independentSyncs ? 0 : nextIdx;
            },
            (err) => {
              f.state = 'failed';
              f.err = err;
            },
          )
          .finally(() => this.wake?.());
        inflight.push(f);
      }

      // Acknowledge from the front, in order.
      let failure: Flight | null = null;
      let failErr: unknown;
      while (inflight.length) {
        const head = inflight[0];
        if (head.state === 'running') break;
        if (head.state === 'failed') {
          failure = head;
          failErr = head.err;
          break;
        }
        let ready = true;
        for (let i = 1; i < inflight.length && inflight[i].idx < head.barrier; i++) {
          if (inflight[i].state === 'failed') {
            failure = head;
            failErr = inflight[i].err;
            break;
          }
          if (inflight[i].state === 'running') ready = false;
        }
        if (failure || !ready) break;
        inflight.shift();
        durable = head.end;
        for (const p of head.batch) p.resolve();
      }

      if (failure) {
        // Undo and reject the failed batch and everything after it (each may build on the one before).
        const failed = [...inflight.flatMap((f) => f.batch), ...this.pending];
        this.pending = [];
        this.host.fail(failed, failErr);
        await Promise.all(inflight.map((f) => f.settled));
        inflight.length = 0;
        compaction.cut(failure.start);
        this.cutTo = failure.start;
        try {
          await j.truncate(failure.start);
          this.cutTo = null;
        } catch {
          // Cut before the next write (above).
        }
        continue;
      }

      if (!inflight.length) {
        if (compaction.ready) {
          try {
            j = await compaction.swap(j, this.cutTo !== null);
            this.journal = j;
          } catch (err) {
            this.journal = null;
            this.failPending(err);
            return;
          }
          continue;
        }
        if (this.pending.length) continue;
        if (!this.host.closing()) compaction.maybeStart(j);
        return;
      }
      await new Promise<void>((r) => (this.wake = r));
      this.wake = null;
    }
  }
}

/** Undoes `failed` (in seq order) in reverse and rejects them all; returns the seq the state is back at (undefined if none). */
export function undoFailed(state: State, failed: Pending[], err: unknown): number | undefined {
  if (!failed.length) return undefined;
  for (let i = failed.length - 1; i >= 0; i--) state.rollback(failed[i].undo);
  for (const p of failed) p.reject(err);
  return failed[0].seq - 1;
}
