import { closeSync, constants as fsc, fdatasync, openSync, promises as fs, writeSync } from 'node:fs';
import path from 'node:path';

/** An append-only file that is durable after each `append`. */
export interface JournalHandle {
  /** Bytes written so far (durable only after `append`, or after `sync` for bytes from `write`). */
  readonly size: number;
  /** Writes `buf` at the end and fdatasyncs; on failure the file is cut back to its previous size. */
  append(buf: Buffer): Promise<void>;
  /**
   * Optional, with `sync`: writes `buf` at the end without syncing and grows `size`; on failure
   * `size` stays and bytes past it may remain (the caller cuts them with `truncate`). Calls are
   * made one at a time. A layer with both lets the store pipeline commits: the next batch is
   * written while earlier syncs run.
   */
  write?(buf: Buffer): Promise<void>;
  /** Optional, with `write`: fdatasyncs everything written so far. May run concurrently with itself and with `write`. */
  sync?(): Promise<void>;
  /**
   * True when each of up to SYNC_SLOTS concurrent `sync` calls reports every writeback error by
   * itself, so its success covers everything written before it started whatever other syncs
   * report. Linux reports a writeback error once per open file description (errseq), and each
   * concurrent sync here goes through a description of its own. Without it, a sync that ran
   * alongside another may have had its error taken by the other: the store then waits for both.
   */
  readonly independentSyncs?: boolean;
  truncate(size: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The store's whole contact with the disk, in one place so tests can inject faults into it.
 */
export interface FileLayer {
  openJournal(file: string): Promise<JournalHandle>;
  /** Write to a temp file, fsync it, rename over `file`, fsync the directory. */
  writeAtomic(file: string, data: string | Buffer | readonly Buffer[]): Promise<void>;
  readIfExists(file: string): Promise<Buffer | null>;
}

async function fsyncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, fsc.O_RDONLY);
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Concurrent syncs a NodeJournal runs through file descriptions of their own (the store's pipeline depth). */
export const SYNC_SLOTS = 4;

/**
 * Preallocation of a busy journal. A write that makes the file longer also changes its size, and
 * the fdatasync after it must then commit that metadata too (on ext4, a journal transaction). Once
 * a journal has grown past `after` bytes it is extended with zeros, `chunk` bytes ahead of the
 * writes: commits then overwrite blocks the file already has, and their syncs flush data only.
 * (PostgreSQL zero-fills its WAL segments for the same reason.) The zeros past the last record
 * read as the end of the journal (a torn tail with nothing after it), and are cut when the store
 * opens the file, on truncate and on close. A quiet journal is never preallocated.
 */
export interface PreallocateOptions {
  after: number;
  chunk: number;
}

export const DEFAULT_PREALLOCATE: PreallocateOptions = { after: 256 * 1024, chunk: 1024 * 1024 };

/** Zeros written in pieces of this size (one buffer, shared, never written to). */
const ZERO_PIECE = 256 * 1024;
let zeroPiece: Buffer | null = null;

class NodeJournal implements JournalHandle {
  readonly independentSyncs = true;
  /** Read-only descriptions of the journal, one per concurrent sync; the ones not in use. */
  private readonly idle: number[];
  /** The file's length: `size` plus the zeros written ahead of the records (never less than `size`). */
  private allocated: number;

  constructor(
    private readonly fh: fs.FileHandle,
    public size: number,
    private readonly syncFds: number[],
    private readonly preallocate: PreallocateOptions | null,
  ) {
    this.idle = [...syncFds];
    this.allocated = size;
  }

  async append(buf: Buffer): Promise<void> {
    const before = this.size;
    try {
      let off = 0;
      while (off < buf.length) {
        const { bytesWritten } = await this.fh.write(buf, off, buf.length - off, before + off);
        off += bytesWritten;
      }
      await this.fh.datasync();
      this.size = before + buf.length;
      if (this.size > this.allocated) this.allocated = this.size;
    } catch (err) {
      await this.fh.truncate(before).then(() => (this.allocated = before), () => undefined);
      throw err;
    }
  }

  /**
   * Written on the calling thread: an append of a few KB to the page cache takes microseconds,
   * less than handing it to the thread pool and back (the durable part, the sync, stays async).
   */
  async write(buf: Buffer): Promise<void> {
    const before = this.size;
    const end = before + buf.length;
    if (this.preallocate && end > this.allocated && end > this.preallocate.after) this.extend(end + this.preallocate.chunk);
    let off = 0;
    while (off < buf.length) off += writeSync(this.fh.fd, buf, off, buf.length - off, before + off);
    this.size = end;
    if (end > this.allocated) this.allocated = end;
  }

  /**
   * Writes zeros from the file's end to `to`, on this thread (`write` calls come one at a time, so
   * nothing else writes past `size` meanwhile). Best effort: if it fails (a full disk), the writes
   * simply append, and the write itself reports the error.
   */
  private extend(to: number): void {
    const zeros = (zeroPiece ??= Buffer.alloc(ZERO_PIECE));
    try {
      while (this.allocated < to) this.allocated += writeSync(this.fh.fd, zeros, 0, Math.min(zeros.length, to - this.allocated), this.allocated);
    } catch {
      // Left as far as it got.
    }
  }

  /**
   * The callback form: lighter than FileHandle.datasync, which this runs once per commit. Each
   * concurrent call syncs through a description of its own (see `independentSyncs`).
   */
  sync(): Promise<void> {
    const fd = this.idle.pop();
    if (fd === undefined) return Promise.reject(new Error(`more than ${SYNC_SLOTS} journal syncs at once`));
    return new Promise((resolve, reject) =>
      fdatasync(fd, (err) => {
        this.idle.push(fd);
        if (err) reject(err);
        else resolve();
      }),
    );
  }

  async truncate(size: number): Promise<void> {
    await this.fh.truncate(size);
    this.allocated = size;
    await this.fh.datasync();
    this.size = size;
  }

  /** Cuts the zeros written ahead, if any (best effort: they read as the end of the journal anyway). */
  async close(): Promise<void> {
    if (this.allocated > this.size) await this.fh.truncate(this.size).catch(() => undefined);
    for (const fd of this.syncFds) closeSync(fd);
    await this.fh.close();
  }
}

async function openNodeJournal(file: string, preallocate: PreallocateOptions | null): Promise<NodeJournal> {
  const existed = await fs.stat(file).then(() => true, () => false);
  const fh = await fs.open(file, fsc.O_RDWR | fsc.O_CREAT, 0o600);
  const { size } = await fh.stat();
  if (!existed) await fsyncDir(path.dirname(file));
  // Opened now, before anything is written through `fh`: an error from then on reaches each.
  const syncFds: number[] = [];
  try {
    for (let i = 0; i < SYNC_SLOTS; i++) syncFds.push(openSync(file, fsc.O_RDONLY));
  } catch (err) {
    for (const fd of syncFds) closeSync(fd);
    await fh.close();
    throw err;
  }
  return new NodeJournal(fh, size, syncFds, preallocate);
}

/** The file layer on node:fs. `preallocate: null` turns preallocation off. */
export function createNodeFileLayer(options: { preallocate?: PreallocateOptions | null } = {}): FileLayer {
  const preallocate = options.preallocate === undefined ? DEFAULT_PREALLOCATE : options.preallocate;
  return { ...nodeFileLayer, openJournal: (file) => openNodeJournal(file, preallocate) };
}

export const nodeFileLayer: FileLayer = {
  openJournal: (file) => openNodeJournal(file, DEFAULT_PREALLOCATE),
  async writeAtomic(file, data) {
    const tmp = `${file}.tmp-${process.pid}`;
    const fh = await fs.open(tmp, 'w', 0o600);
    try {
      // Each writeFile continues where the one before it ended.
      for (const chunk of typeof data === 'string' || Buffer.isBuffer(data) ? [data] : data) await fh.writeFile(chunk);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, file);
    await fsyncDir(path.dirname(file));
  },
  async readIfExists(file) {
    try {
      return await fs.readFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  },
};
