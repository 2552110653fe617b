/*
 * The fixture `wcm pull` writes, as it goes: one JSON object, one record per line, into a
 * temporary file (`FILE.partial`) that is renamed to FILE only once it is complete. Beside it,
 * `FILE.partial.state.json` says how far the pull got (the bytes of the partial file that are
 * whole, and where each list stood), so `--resume` cuts the file back to those bytes and carries on.
 */
import {
  closeSync,
  createReadStream,
  fsyncSync,
  ftruncateSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

export interface PullState {
  version: 1;
  /** The options that decide what is pulled: a resume with others is refused. */
  fingerprint: string;
  token: string;
  scrubKey: string | null;
  workspace: { id: string; name: string };
  /** Bytes of the partial file that are whole. */
  offset: number;
  /** The collection array open at `offset`, and how many records it has. */
  open: { name: string; count: number } | null;
  /** Where the threads array's records start (to find the threads already written). */
  threadsAt: number | null;
  /** The phase in progress, its sub-list (a view, a knowledge list) and the next cursor there. */
  phase: number;
  sub: number;
  cursor: string | null;
  counts: Record<string, number>;
  statuses: Record<string, { status: string; reason?: string }>;
  notes: string[];
  knowledgeLists: Array<{ id: string; name: string }>;
  missing: string[];
  requests: number;
}

export class FixtureWriter {
  private constructor(
    private readonly fd: number,
    public offset: number,
    public open: { name: string; count: number } | null,
  ) {}

  /** A new partial file, with the document's start. */
  static create(file: string): FixtureWriter {
    const fd = openSync(file, 'w', 0o600);
    const w = new FixtureWriter(fd, 0, null);
    w.write('{"version":1');
    return w;
  }

  /** The partial file of an interrupted pull, cut back to what its state says is whole. */
  static reopen(file: string, state: PullState): FixtureWriter {
    const fd = openSync(file, 'r+');
    ftruncateSync(fd, state.offset);
    return new FixtureWriter(fd, state.offset, state.open ? { ...state.open } : null);
  }

  private write(s: string): void {
    const buf = Buffer.from(s);
    let done = 0;
    while (done < buf.length) done += writeSync(this.fd, buf, done, buf.length - done, this.offset + done);
    this.offset += buf.length;
  }

  begin(name: string): void {
    if (this.open) throw new Error(`collection ${this.open.name} is still open`);
    this.write(`,\n${JSON.stringify(name)}:[`);
    this.open = { name, count: 0 };
  }

  /** Records of the open collection, one per line (each starts with its `"id"`). */
  add(records: unknown[]): void {
    if (!records.length) return;
    const open = this.open!;
    let s = '';
    for (const r of records) {
      s += `${open.count ? ',' : ''}\n${JSON.stringify(r)}`;
      open.count++;
    }
    this.write(s);
  }

  end(): void {
    this.write(this.open!.count ? '\n]' : ']');
    this.open = null;
  }

  finish(): void {
    this.write('\n}\n');
    fsyncSync(this.fd);
    this.close();
  }

  close(): void {
    closeSync(this.fd);
  }
}

export const stateFileOf = (partial: string) => `${partial}.state.json`;

export function saveState(partial: string, state: PullState): void {
  const file = stateFileOf(partial);
  writeFileSync(`${file}.tmp`, JSON.stringify(state), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

export async function loadState(partial: string): Promise<PullState | null> {
  try {
    const s = JSON.parse(await readFile(stateFileOf(partial), 'utf8')) as PullState;
    return s.version === 1 ? s : null;
  } catch {
    return null;
  }
}

export function removePartial(partial: string): void {
  rmSync(partial, { force: true });
  rmSync(stateFileOf(partial), { force: true });
  rmSync(`${stateFileOf(partial)}.tmp`, { force: true });
}

/** The thread ids already written to the partial file (one record per line, id first). */
export async function writtenThreadIds(partial: string, from: number, to: number): Promise<Set<string>> {
  const ids = new Set<string>();
  if (to <= from) return ids;
  const lines = createInterface({
    input: createReadStream(partial, { start: from, end: to - 1 }),
    crlfDelay: Infinity,
  });
  for await (const line of lines) {
    const m = /^,?\{"id":"([^"]+)"/.exec(line);
    if (m) ids.add(m[1]);
  }
  return ids;
}

export function promote(partial: string, file: string): void {
  renameSync(partial, file);
  rmSync(stateFileOf(partial), { force: true });
}
