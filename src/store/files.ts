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

class NodeJournal implements JournalHandle {
  readonly independentSyncs = true;
  /** Read-only descriptions of the journal, one per concurrent sync; the ones not in use. */
  private readonly idle: number[];

  constructor(
    private readonly fh: fs.FileHandle,
    public size: number,
    private readonly syncFds: number[],
  ) {
    this.idle = [...syncFds];
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
    } catch (err) {
      await this.fh.truncate(before).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Written on the calling thread: an append of a few KB to the page cache takes microseconds,
   * less than handing it to the thread pool and back (the durable part, the sync, stays async).
   */
  async write(buf: Buffer): Promise<void> {
    const before = this.size;
    let off = 0;
    while (off < buf.length) off += writeSync(this.fh.fd, buf, off, buf.length - off, before + off);
    this.size = before + buf.length;
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
    await this.fh.datasync();
    this.size = size;
  }

  async close(): Promise<void> {
    for (const fd of this.syncFds) closeSync(fd);
    await this.fh.close();
  }
}

export const nodeFileLayer: FileLayer = {
  async openJournal(file) {
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
    return new NodeJournal(fh, size, syncFds);
  },
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
