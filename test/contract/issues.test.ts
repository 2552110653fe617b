import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldErrors } from '../../src/contract/issues.js';

const S = z.strictObject({
  s: z.string().max(3),
  n: z.number().int().min(1),
  b: z.boolean(),
  a: z.array(z.string()).max(1),
  e: z.enum(['x', 'y']),
  o: z.strictObject({ t: z.string() }),
});
const valid = { s: 'abc', n: 1, b: true, a: ['q'], e: 'x', o: { t: '' } };

describe('fieldErrors: one message per failing path, saying what was received', () => {
  it.each([
    ['missing member', { ...valid, s: undefined }, { s: ['Required.'] }],
    ['string too long', { ...valid, s: 'abcd' }, { s: ['Must be at most 3 characters.'] }],
    ['wrong type', { ...valid, s: 5 }, { s: ['Must be a string; received a number.'] }],
    ['null where a boolean goes', { ...valid, b: null }, { b: ['Must be a boolean; received null.'] }],
    ['non-integer', { ...valid, n: 1.5 }, { n: ['Must be an integer; received a non-integer number.'] }],
    ['below minimum', { ...valid, n: 0 }, { n: ['Must be at least 1.'] }],
    ['object where an array goes', { ...valid, a: {} }, { a: ['Must be an array; received an object.'] }],
    ['too many entries', { ...valid, a: ['1', '2'] }, { a: ['Must have at most 1 entries.'] }],
    ['enum', { ...valid, e: 'z' }, { e: ['Must be one of: x, y.'] }],
    [
      'unknown members, each named',
      { ...valid, zz: 1, o: { t: '', yy: 2 } },
      { zz: ['Unknown field: not part of this operation.'], 'o.yy': ['Unknown field: not part of this operation.'] },
    ],
  ])('%s', (_name, input, expected) => {
    const r = S.safeParse(input);
    expect(r.success).toBe(false);
    expect(fieldErrors(r.error!.issues)).toEqual(expected);
  });
});
