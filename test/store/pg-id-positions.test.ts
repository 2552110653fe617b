// The thread ids' positions an import keeps for its duplicate checks (src/store/pg/id-positions.ts):
// packed UUIDs in typed arrays must answer as a Map of the same strings would, through every growth.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IdPositions } from '../../src/store/pg/id-positions.js';

describe('IdPositions', () => {
  it('answers as a Map does for random, sequential, upper-case and non-UUID ids, past many growths', () => {
    const ids = [
      ...Array.from({ length: 30_000 }, () => randomUUID()),
      ...Array.from({ length: 30_000 }, (_, i) => `00000000-0000-4000-8c00-${String(i).padStart(12, '0')}`),
      // Upper case: another id than its lower-case form, though the same 128 bits.
      'AAAAAAAA-0000-4000-8000-000000000001',
      'aaaaaaaa-0000-4000-8000-000000000001',
      'not-a-uuid',
    ];
    const map = new Map<string, number>();
    const packed = new IdPositions();
    const differ: string[] = [];
    ids.forEach((id, i) => {
      if (packed.swap(id, i) !== map.get(id)) differ.push(id);
      map.set(id, i);
    });
    // Set again: the last position wins, as `at.set` in checkFixture.
    for (const id of ids.slice(0, 100)) {
      map.set(id, 7);
      packed.swap(id, 7);
    }
    for (const id of ids) if (packed.get(id) !== map.get(id)) differ.push(id);
    expect(differ).toEqual([]);
    expect(packed.get('AAAAAAAA-0000-4000-8000-000000000001')).toBe(ids.length - 3);
    expect(packed.has(randomUUID())).toBe(false);
    expect(packed.has('00000000-0000-4000-8c00-000000030000')).toBe(false);
  });
});
