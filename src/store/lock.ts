import { promises as fs } from 'node:fs';
import os from 'node:os';

export class StoreLockedError extends Error {
  constructor(
    readonly file: string,
    readonly pid: number,
  ) {
    super(
      `Another wcm server (pid ${pid}) is using ${file}. Stop it first, or start this one with a different \`--data FILE\`.`,
    );
  }
}

interface LockInfo {
  pid: number;
  host: string;
  started_at: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Reads the lock next to a data file; null when none, or when it is stale (its process is gone). */
export async function readLock(dataFile: string): Promise<LockInfo | null> {
  const lockFile = `${dataFile}.lock`;
  let text: string;
  try {
    text = await fs.readFile(lockFile, 'utf8');
  } catch {
    return null;
  }
  try {
    const info = JSON.parse(text) as LockInfo;
    if (info.host === os.hostname() && !alive(info.pid)) return null;
    return info;
  } catch {
    // A lock torn by a crash between create and write: stale once it is a few seconds old.
    const st = await fs.stat(lockFile).catch(() => null);
    if (!st || Date.now() - st.mtimeMs > 5000) return null;
    return { pid: -1, host: os.hostname(), started_at: '' };
  }
}

/**
 * Takes the lock next to a data file (`FILE.lock`, created exclusively). A lock whose process is
 * gone (a server killed with SIGKILL) is taken over, so a crash never blocks the next start.
 */
export async function acquireLock(dataFile: string): Promise<() => Promise<void>> {
  const lockFile = `${dataFile}.lock`;
  const info: LockInfo = { pid: process.pid, host: os.hostname(), started_at: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fh = await fs.open(lockFile, 'wx', 0o600);
      await fh.writeFile(JSON.stringify(info));
      await fh.close();
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await fs.unlink(lockFile).catch(() => undefined);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = await readLock(dataFile);
      if (holder) throw new StoreLockedError(dataFile, holder.pid);
      await fs.unlink(lockFile).catch(() => undefined);
    }
  }
  throw new Error(`Could not take the lock ${lockFile}.`);
}
