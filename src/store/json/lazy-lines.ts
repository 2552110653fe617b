import { ChunkWriter } from './snapshot-writer.js';

/**
 * Records of a lazy collection written, as a fixture is read, straight into the snapshot's line
 * form (`"ID"<TAB>{…}`, snapshot.ts): a bulk load hands the bytes to the state as a cold start
 * does (State.adoptLines), which parses a record on first read. A big seed then keeps no object
 * per record (garbage collection of the messages was most of its time), and the snapshot copies
 * the lines as bytes.
 */
export class LazyLines {
  private readonly out: ChunkWriter;
  private buf: Buffer | null = null;
  readonly ids: string[] = [];
  /** Where each record's JSON starts in `bytes()`. */
  readonly offsets: number[] = [];

  /** `sizeHint`: about how many bytes the lines will take (the fixture's size): one buffer, not copied at the end. */
  constructor(sizeHint: number) {
    this.out = new ChunkWriter(Math.max(64 * 1024, sizeHint));
  }

  add(rec: { id: string }): void {
    this.out.string(JSON.stringify(rec.id));
    this.out.string('\t');
    this.ids.push(rec.id);
    this.offsets.push(this.out.length);
    // Not `${json}\n`: writing that joined string would copy the record's JSON once more.
    this.out.string(JSON.stringify(rec));
    this.out.string('\n');
  }

  /**
   * A thread's messages record whose messages array is JSON already, in the store's form
   * (fixtures/parse.ts, rawThread): `src[start, end)` is copied as it is. The same line as `add` would write.
   */
  addJson(id: string, src: Buffer, start: number, end: number): void {
    const key = JSON.stringify(id);
    this.out.string(key);
    this.out.string('\t');
    this.ids.push(id);
    this.offsets.push(this.out.length);
    this.out.string(`{"id":${key},"messages":`);
    this.out.bytes(src, start, end);
    this.out.string('}\n');
  }

  /** Every line, in one buffer; nothing can be added after. */
  bytes(): Buffer {
    if (this.buf) return this.buf;
    const chunks = this.out.done();
    return (this.buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  }

  /** Record `i` parsed again (for a store that cannot take the lines as they are). */
  record(i: number): { id: string } {
    const buf = this.bytes();
    const at = this.offsets[i];
    return JSON.parse(buf.toString('utf8', at, buf.indexOf(10, at)));
  }
}
