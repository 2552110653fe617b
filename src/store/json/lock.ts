import { randomBytes } from 'node:crypto';
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

/** What /proc tells of a process (Linux); null elsewhere, or when it is gone. */
interface ProcStat {
  /** R, S, D, … ; Z (zombie) and X (dead) hold nothing any more. */
  state: string;
  /** The kernel's task flags: PF_EXITING is set from the moment it starts to exit. */
  flags: number;
  /** When it started, ms since the epoch. */
  startMs: number | null;
}

const PF_EXITING = 0x4;

async function procStat(pid: number): Promise<ProcStat | null> {
  try {
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces): state is field 3, flags 9, starttime 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    const btime = Number(/^btime (\d+)$/m.exec(await fs.readFile('/proc/stat', 'utf8'))?.[1]);
    return {
      state: fields[0],
      flags: Number(fields[6]),
      startMs: Number.isFinite(ticks) && Number.isFinite(btime) ? btime * 1000 + (ticks / 100) * 1000 : null,
    };
  } catch {
    return null;
  }
}

/**
 * Whether the lock's process still holds it. On Linux also: a process that is exiting (a server
 * just killed with SIGKILL takes a moment to release its memory) or a zombie its parent has not
 * reaped yet holds nothing; and a pid that now belongs to a process started after the lock was
 * written is stale (the server died and its pid was reused).
 */
async function holderAlive(info: LockInfo): Promise<boolean> {
  if (info.host !== os.hostname()) return true;
  if (!alive(info.pid)) return false;
  const st = await procStat(info.pid);
  if (!st) return true;
  if (st.state === 'Z' || st.state === 'X' || (Number.isFinite(st.flags) && st.flags & PF_EXITING)) return false;
  const locked = Date.parse(info.started_at);
  // Clock ticks and btime are coarse: allow a few seconds before calling it reuse.
  return st.startMs === null || !Number.isFinite(locked) || st.startMs <= locked + 5000;
}

/** Reads the lock next to a data file; null when none, or when it is stale (its process is gone). */
export async function readLock(dataFile: string): Promise<LockInfo | null> {
  const lockFile = `${dataFile}.lock`;
  const text = await fs.readFile(lockFile, 'utf8').catch(() => null);
  return text === null ? null : judgeLock(lockFile, text);
}

/** The holder of a lock whose content is `text`, or null when that lock is stale. */
async function judgeLock(lockFile: string, text: string): Promise<LockInfo | null> {
  try {
    const info = JSON.parse(text) as LockInfo;
    return (await holderAlive(info)) ? info : null;
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
  // The nonce makes every lock's content unique, so "still the lock I judged" is exact.
  const info: LockInfo & { nonce: string } = {
    pid: process.pid,
    host: os.hostname(),
    started_at: new Date().toISOString(),
    nonce: randomBytes(8).toString('hex'),
  };
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const fh = await fs.open(lockFile, 'wx', 0o600);
      await fh.writeFile(JSON.stringify(info));
      await fh.close();
      let released = false;
      const mine = JSON.stringify(info);
      return async () => {
        if (released) return;
        released = true;
        // Only our own lock: never remove one another process holds now.
        if ((await fs.readFile(lockFile, 'utf8').catch(() => null)) === mine)
          await fs.unlink(lockFile).catch(() => undefined);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const seen = await fs.readFile(lockFile, 'utf8').catch(() => null);
      if (seen === null) continue; // released meanwhile: try again
      const holder = await judgeLock(lockFile, seen);
      if (holder) throw new StoreLockedError(dataFile, holder.pid);
      // Break the stale lock under a second, exclusive "breaker" file, and only if it still holds
      // exactly what was judged stale: of several starts racing for one stale lock, one removes it
      // and the rest find the winner's new lock (moving it aside and back, as before, left a window
      // in which a third start could take the lock too).
      await breakStaleLock(lockFile, seen);
    }
  }
  throw new Error(`Could not take the lock ${lockFile}.`);
}

/** A breaker older than this was left by a process that died mid-takeover. */
const BREAKER_STALE_MS = 10_000;

async function breakStaleLock(lockFile: string, judged: string): Promise<void> {
  const breaker = `${lockFile}.breaker`;
  let fh;
  try {
    fh = await fs.open(breaker, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const st = await fs.stat(breaker).catch(() => null);
    if (st && Date.now() - st.mtimeMs > BREAKER_STALE_MS) await fs.unlink(breaker).catch(() => undefined);
    // Someone else is breaking it: give them a moment, then look again.
    await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
    return;
  }
  try {
    if ((await fs.readFile(lockFile, 'utf8').catch(() => null)) === judged)
      await fs.unlink(lockFile).catch(() => undefined);
  } finally {
    await fh.close();
    await fs.unlink(breaker).catch(() => undefined);
  }
}
