import type { FileLayer, JournalHandle } from './files.js';
import { snapshotChunks, type SnapshotSection } from './snapshot-writer.js';

/** How long a compaction beside the writes encodes before it lets the event loop go round (ms). */
const BACKGROUND_SLICE_MS = 2;

/**
 * A compaction running beside the writes. The state at `seq`, which is the journal's first `from`
 * bytes, is encoded and written as the snapshot while later batches go on being appended; the
 * bytes of each are kept in `tail`. Once the snapshot is durable (`ready`), the commit loop lets
 * the batches in flight settle and replaces the journal by its tail (`swap`).
 */
interface Background {
  from: number;
  tail: Array<{ start: number; buf: Buffer }>;
  /** The snapshot is being encoded or written. */
  running: boolean;
  /** The snapshot is durable; the journal's first `from` bytes are not needed any more. */
  ready: boolean;
  /** Settles when `running` ends (never rejects). */
  done: Promise<void>;
}

/** What compaction needs of the store. */
export interface CompactionHost {
  readonly files: FileLayer;
  /** The snapshot file and the journal beside it. */
  readonly file: string;
  readonly journalFile: string;
  /** Compact once the journal is past this many bytes. */
  readonly compactBytes: number;
  /** The whole state, taken at once, and the sequence number it is at. */
  take(): { seq: number; sections: SnapshotSection[] };
  /** A snapshot up to `seq` is durable. */
  written?(seq: number): void;
  /** A compaction beside the writes became ready: the commit loop should run and swap the journal. */
  ready(): void;
}

/** Folding the journal into the snapshot: beside the writes when it grows, or at once (compact, close). */
export class Compaction {
  private background: Background | null = null;
  /** After a compaction beside the writes failed: the journal size at which the next one may start. */
  private retryAt = 0;

  constructor(private readonly host: CompactionHost) {}

  /** The snapshot of a compaction beside the writes is durable; the journal waits to be swapped. */
  get ready(): boolean {
    return !!this.background?.ready;
  }

  /** Settles when a compaction beside the writes has encoded and written its snapshot (or failed); undefined if none runs. */
  get running(): Promise<void> | undefined {
    return this.background?.running ? this.background.done : undefined;
  }

  /**
   * Settles once `committer` is idle and no compaction runs beside the writes (one whose snapshot
   * is durable has had the journal swapped first).
   */
  async settle(committer: { readonly busy: Promise<void> | undefined; poke(): void }): Promise<void> {
    for (;;) {
      const busy = committer.busy ?? this.running;
      if (busy) await busy;
      else if (this.ready) committer.poke();
      else return;
    }
  }

  /** A batch written while a compaction runs: its bytes become the new journal's tail. */
  wrote(start: number, buf: Buffer): void {
    this.background?.tail.push({ start, buf });
  }

  /** The journal is cut back to `from` (a failed batch): its bytes and those after are not part of the tail. */
  cut(from: number): void {
    if (this.background) this.background.tail = this.background.tail.filter((t) => t.start < from);
  }

  /**
   * Starts a compaction beside the writes if the journal is past compactBytes. Called by the commit
   * loop with nothing in flight or pending, so the state taken here is exactly what the journal holds.
   */
  maybeStart(j: JournalHandle): void {
    const { host } = this;
    if (this.background || j.size <= host.compactBytes || j.size < this.retryAt) return;
    const { seq, sections } = host.take();
    const bg: Background = { from: j.size, tail: [], running: true, ready: false, done: Promise.resolve() };
    this.background = bg;
    bg.done = (async () => {
      try {
        // Short slices: requests are being answered between them (10 ms slices held p99 at ~30 ms).
        await host.files.writeAtomic(host.file, snapshotChunks(seq, sections, { sliceMs: BACKGROUND_SLICE_MS }));
        host.written?.(seq);
        bg.ready = true;
      } catch (err) {
        // The journal still holds everything: the next compaction tries once it has grown again.
        this.background = null;
        this.retryAt = bg.from + host.compactBytes;
        process.emitWarning(`wcm: compaction failed: ${(err as Error).message}`);
      } finally {
        bg.running = false;
      }
      if (bg.ready && this.background === bg) host.ready();
    })();
  }

  /**
   * Replaces the journal by the part the durable snapshot does not hold (nothing in flight): the
   * bytes of the batches written since the compaction started, written aside, synced and renamed
   * over it. A crash at any point leaves the old snapshot with the whole journal, or the new one
   * with either journal (replay skips records the snapshot holds). Returns the journal to write to
   * next; throws if it could not be opened again (the journal is then closed).
   * `uncut`: a failed batch's bytes are still past the end (a cut is pending), so the tail is not whole.
   */
  async swap(j: JournalHandle, uncut: boolean): Promise<JournalHandle> {
    const { host } = this;
    const bg = this.background!;
    this.background = null;
    const bufs: Buffer[] = [];
    let at = bg.from;
    for (const t of bg.tail) {
      if (t.start !== at) break;
      bufs.push(t.buf);
      at += t.buf.length;
    }
    // Not the whole tail: keep the journal as it is; replay skips the records the snapshot holds,
    // and a later compaction replaces it.
    if (at !== j.size || uncut) {
      this.retryAt = j.size + host.compactBytes;
      return j;
    }
    await j.close();
    await host.files.writeAtomic(host.journalFile, bufs).then(
      () => (this.retryAt = 0),
      (err) => {
        this.retryAt = j.size + host.compactBytes;
        process.emitWarning(
          `wcm: the journal could not be replaced after a compaction (it keeps the records the snapshot holds): ${(err as Error).message}`,
        );
      },
    );
    return host.files.openJournal(host.journalFile);
  }

  /**
   * The state as the snapshot, then the journal emptied, now. The state is taken at once; no
   * journal write may happen until this is done (the caller holds writes), so the journal holds
   * nothing past the snapshot when it is emptied. A compaction beside the writes whose journal
   * was not swapped yet is superseded.
   */
  async writeSnapshot(journal: JournalHandle | null): Promise<void> {
    this.background = null;
    const { seq, sections } = this.host.take();
    await this.host.files.writeAtomic(this.host.file, snapshotChunks(seq, sections));
    this.host.written?.(seq);
    await journal?.truncate(0);
  }
}
