/**
 * Each thread id's last position in a fixture file, for the duplicate checks of an import
 * (import-file.ts): in a Map a million ids held 96 MB of the heap (and as much again of heap
 * the collector let grow around them); here a UUID is four 32-bit words in an open-addressed table
 * of typed arrays, about 40 bytes an id. An id not in UUIDs' lower-case form (valid but rare) goes in
 * a Map: upper-case letters make it another id than its lower-case form.
 */
export class IdPositions {
  private words = new Uint32Array(4 * 1024);
  /** Each slot's position, -1 when the slot is empty. */
  private at = new Int32Array(1024).fill(-1);
  private used = 0;
  private readonly other = new Map<string, number>();
  private readonly key = new Uint32Array(4);

  get(id: string): number | undefined {
    if (!this.pack(id)) return this.other.get(id);
    const at = this.at[this.slot()];
    return at < 0 ? undefined : at;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Puts `id` at `position`; returns its position before, if any. */
  swap(id: string, position: number): number | undefined {
    if (!this.pack(id)) {
      const before = this.other.get(id);
      this.other.set(id, position);
      return before;
    }
    const slot = this.slot();
    const before = this.at[slot];
    if (before < 0) {
      this.words.set(this.key, slot * 4);
      this.used++;
    }
    this.at[slot] = position;
    // Linear probing stays short while at most 3/4 of the slots are taken.
    if (this.used * 4 > this.at.length * 3) this.grow();
    return before < 0 ? undefined : before;
  }

  /** Puts `id` in `key` as four words; false when it is not a lower-case UUID. */
  private pack(id: string): boolean {
    if (id.length !== 36) return false;
    const k = this.key;
    let word = 0;
    let digits = 0;
    for (let i = 0; i < 36; i++) {
      const c = id.charCodeAt(i);
      if (i === 8 || i === 13 || i === 18 || i === 23) {
        if (c !== 45) return false; // -
        continue;
      }
      const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
      if (d < 0) return false;
      word = (word << 4) | d;
      if (++digits % 8 === 0) k[digits / 8 - 1] = word;
    }
    return true;
  }

  /** The slot holding `key`, or the empty slot where it goes. */
  private slot(): number {
    const k = this.key;
    const mask = this.at.length - 1;
    let h = Math.imul(
      k[0] ^ Math.imul(k[1], 0x9e3779b1) ^ Math.imul(k[2], 0x85ebca6b) ^ Math.imul(k[3], 0xc2b2ae35),
      0x27d4eb2f,
    );
    h ^= h >>> 15;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      if (this.at[s] < 0) return s;
      const w = s * 4;
      const ws = this.words;
      if (ws[w] === k[0] && ws[w + 1] === k[1] && ws[w + 2] === k[2] && ws[w + 3] === k[3]) return s;
    }
  }

  private grow(): void {
    const { words, at } = this;
    this.words = new Uint32Array(words.length * 2);
    this.at = new Int32Array(at.length * 2).fill(-1);
    for (let s = 0; s < at.length; s++) {
      if (at[s] < 0) continue;
      this.key.set(words.subarray(s * 4, s * 4 + 4));
      const to = this.slot();
      this.words.set(this.key, to * 4);
      this.at[to] = at[s];
    }
  }
}
