import { closeSync, constants as fsc, openSync, promises as fs, write, writeSync } from 'node:fs';
import path from 'node:path';

/** The journal: an append-only file written by durable writes, several at once. */
export interface JournalHandle {
  /** Bytes written or being written (durable once the `writeDurable` that wrote them resolved). */
  readonly size: number;
  /**
   * Writes `buf` at the end and resolves once it is durable. Its place is taken at the call
   * (`size` grows at once), even if it then fails, so the next call writes after it without
   * waiting: up to SYNC_SLOTS calls run at once, and their bytes may reach the disk in any order.
   * On failure the bytes from its place on may be anything (the caller cuts them with `truncate`).
   */
  writeDurable(buf: Buffer): Promise<void>;
  /**
   * True when each of up to SYNC_SLOTS concurrent `writeDurable` calls reports every writeback
   * error by itself, so its success means its bytes are durable whatever the others report.
   * Linux reports a writeback error once per open file description (errseq), and each concurrent
   * write here goes through a description of its own. Without it, a call that ran alongside
   * another may have had its error taken by the other: the store then waits for both.
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
  writeAtomic(file: string, data: string | Buffer | readonly Buffer[] | AsyncIterable<Buffer>): Promise<void>;
  readIfExists(file: string): Promise<Buffer | null>;
}

export async function fsyncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, fsc.O_RDONLY);
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Concurrent durable writes a NodeJournal runs through file descriptions of their own (the store's pipeline depth). */
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

/**
 * The journal on node:fs. `writeDurable` writes through a description opened with O_DSYNC: the write returns once its bytes are durable, so a
 * commit is one call on the thread pool (not a write, then an fdatasync), and nothing is written
 * on the event loop.
 */
class NodeJournal implements JournalHandle {
  readonly independentSyncs = true;
  /** O_DSYNC descriptions of the journal, one per concurrent durable write; the ones not in use. */
  private readonly idle: number[];
  /** The file's length: `size` plus the zeros written ahead of the records (never less than `size`). */
  private allocated: number;
  private closed = false;

  constructor(
    private readonly fh: fs.FileHandle,
    public size: number,
    private readonly dsyncFds: number[],
    private readonly preallocate: PreallocateOptions | null,
  ) {
    this.idle = [...dsyncFds];
    this.allocated = size;
  }

  writeDurable(buf: Buffer): Promise<void> {
    // Its descriptors are closed: their numbers may belong to other files by now.
    if (this.closed) return Promise.reject(new Error('The journal is closed.'));
    const fd = this.idle.pop();
    if (fd === undefined) return Promise.reject(new Error(`more than ${SYNC_SLOTS} durable journal writes at once`));
    const at = this.size;
    const end = at + buf.length;
    if (this.preallocate && end > this.allocated && end > this.preallocate.after)
      this.extend(end + this.preallocate.chunk);
    this.size = end;
    if (end > this.allocated) this.allocated = end;
    return new Promise((resolve, reject) => {
      const from = (off: number) =>
        write(fd, buf, off, buf.length - off, at + off, (err, n) => {
          if (!err && n > 0 && off + n < buf.length) return from(off + n);
          this.idle.push(fd);
          if (err) reject(err);
          else if (n === 0 && buf.length > 0) reject(new Error('The journal write made no progress.'));
          else resolve();
        });
      from(0);
    });
  }

  /**
   * Writes zeros from the file's allocated end to `to`, on this thread: past every place taken so
   * far, so nothing in flight is overwritten. Best effort: if it fails (a full disk), the writes
   * simply extend the file, and the write itself reports the error.
   */
  private extend(to: number): void {
    const zeros = (zeroPiece ??= Buffer.alloc(ZERO_PIECE));
    try {
      while (this.allocated < to)
        this.allocated += writeSync(this.fh.fd, zeros, 0, Math.min(zeros.length, to - this.allocated), this.allocated);
    } catch {
      // Left as far as it got.
    }
  }

  async truncate(size: number): Promise<void> {
    await this.fh.truncate(size);
    this.allocated = size;
    await this.fh.datasync();
    this.size = size;
  }

  /** Cuts the zeros written ahead, if any (best effort: they read as the end of the journal anyway). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.allocated > this.size) await this.fh.truncate(this.size).catch(() => undefined);
    for (const fd of this.dsyncFds) closeSync(fd);
    await this.fh.close();
  }
}

async function openNodeJournal(file: string, preallocate: PreallocateOptions | null): Promise<NodeJournal> {
  const existed = await fs.stat(file).then(
    () => true,
    () => false,
  );
  const fh = await fs.open(file, fsc.O_RDWR | fsc.O_CREAT, 0o600);
  const { size } = await fh.stat();
  if (!existed) await fsyncDir(path.dirname(file));
  // Opened now, before anything is written: a writeback error from then on reaches each.
  const dsyncFds: number[] = [];
  try {
    for (let i = 0; i < SYNC_SLOTS; i++) dsyncFds.push(openSync(file, fsc.O_WRONLY | fsc.O_DSYNC));
  } catch (err) {
    for (const fd of dsyncFds) closeSync(fd);
    await fh.close();
    throw err;
  }
  return new NodeJournal(fh, size, dsyncFds, preallocate);
}

/** The file layer on node:fs. `preallocate: null` turns preallocation off. */
export function createNodeFileLayer(options: { preallocate?: PreallocateOptions | null } = {}): FileLayer {
  const preallocate = options.preallocate === undefined ? DEFAULT_PREALLOCATE : options.preallocate;
  return { ...nodeFileLayer, openJournal: (file) => openNodeJournal(file, preallocate) };
}

/** The most one write call of writeAtomic writes. */
const WRITE_PIECE = 1024 * 1024;

/**
 * `bufs` (as they come: a snapshot is streamed) as pieces of at most WRITE_PIECE bytes: large buffers cut, small ones joined. A snapshot
 * written while the server runs shares the thread pool with the journal's durable writes (one
 * thread, see bin/wcm.js): a journal write waits for one piece at the most, not a whole 8 MB chunk.
 */
async function* pieces(bufs: Iterable<Buffer> | AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let small: Buffer[] = [];
  let smallBytes = 0;
  for await (const b of bufs) {
    if (smallBytes + b.length > WRITE_PIECE && small.length) {
      yield Buffer.concat(small, smallBytes);
      small = [];
      smallBytes = 0;
    }
    if (b.length >= WRITE_PIECE) {
      for (let off = 0; off < b.length; off += WRITE_PIECE) yield b.subarray(off, off + WRITE_PIECE);
    } else {
      small.push(b);
      smallBytes += b.length;
    }
  }
  if (small.length) yield Buffer.concat(small, smallBytes);
}

/** Whether `file` exists: a stat, not a read (the data file can be hundreds of MB). */
export async function fileExists(file: string): Promise<boolean> {
  try {
    await fs.stat(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

export const nodeFileLayer: FileLayer = {
  openJournal: (file) => openNodeJournal(file, DEFAULT_PREALLOCATE),
  async writeAtomic(file, data) {
    const tmp = `${file}.tmp-${process.pid}`;
    const fh = await fs.open(tmp, 'w', 0o600);
    try {
      let at = 0;
      for await (const piece of pieces(
        typeof data === 'string' ? [Buffer.from(data)] : Buffer.isBuffer(data) ? [data] : data,
      )) {
        for (let off = 0; off < piece.length;) {
          const { bytesWritten } = await fh.write(piece, off, piece.length - off, at);
          off += bytesWritten;
          at += bytesWritten;
        }
      }
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
