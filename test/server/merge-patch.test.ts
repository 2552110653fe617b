import { describe, expect, it } from 'vitest';
import { applyMergePatch, MergePatchError, mergeMember } from '../../src/server/merge-patch.js';
import { ProblemError } from '../../src/server/problems.js';

describe('applyMergePatch (RFC 7396)', () => {
  // The examples of RFC 7396, appendix A, plus the nested cases the forms rely on.
  const cases: Array<[string, unknown, unknown, unknown]> = [
    ['replaces a member', { a: 'b' }, { a: 'c' }, { a: 'c' }],
    ['adds a member', { a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    ['null removes a member', { a: 'b' }, { a: null }, {}],
    ['null removes only that member', { a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    ['an array replaces an array', { a: ['b'] }, { a: 'c' }, { a: 'c' }],
    ['a value replaces an array', { a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    ['nested objects merge', { a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    ['arrays of objects replace whole', { a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    ['a non-object patch replaces the target', ['a', 'b'], ['c', 'd'], ['c', 'd']],
    ['an object patch replaces a non-object target', { a: 'b' }, ['c'], ['c']],
    ['null replaces a non-object target', { a: 'foo' }, null, null],
    ['a string replaces a non-object target', { a: 'foo' }, 'bar', 'bar'],
    ['nulls inside a new object are dropped', { e: null }, { a: 1 }, { e: null, a: 1 }],
    ['an object patch turns an array into an object', [1, 2], { a: 'b', c: null }, { a: 'b' }],
    ['new nested objects lose their null members', {}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    [
      'a key not sent stays, deep down',
      { a: { b: { c: 1, d: 2 }, e: 3 } },
      { a: { b: { d: 9 } } },
      { a: { b: { c: 1, d: 9 }, e: 3 } },
    ],
    ['nulls inside arrays stay', {}, { a: [null, { b: null }] }, { a: [null, { b: null }] }],
  ];
  it.each(cases)('%s', (_name, target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it('never mutates the target or the patch', () => {
    const target = Object.freeze({ a: Object.freeze({ b: 1, c: 2 }), d: 1 });
    const patch = Object.freeze({ a: Object.freeze({ b: null, e: Object.freeze({ f: null, g: 1 }) }) });
    const out = applyMergePatch(target, patch);
    expect(out).toEqual({ a: { c: 2, e: { g: 1 } }, d: 1 });
    expect(target).toEqual({ a: { b: 1, c: 2 }, d: 1 });
    expect(patch).toEqual({ a: { b: null, e: { f: null, g: 1 } } });
  });

  it.each(['__proto__', 'constructor', 'prototype'])(
    'refuses the key %s at any depth and never touches a prototype',
    (key) => {
      for (const raw of [
        `{"${key}": {"polluted": true}}`,
        `{"a": {"${key}": {"polluted": true}}}`,
        `{"a": [{"${key}": {"polluted": true}}]}`,
      ]) {
        const patch = JSON.parse(raw);
        expect(() => applyMergePatch({}, patch)).toThrow(MergePatchError);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
    },
  );

  it('names the path of a refused key', () => {
    try {
      applyMergePatch({}, JSON.parse('{"a": {"b": {"__proto__": 1}}}'));
      expect.unreachable();
    } catch (err) {
      expect((err as MergePatchError).path).toBe('a.b.__proto__');
    }
  });

  it('drops prototype keys found in the stored target rather than carrying them over', () => {
    const target = JSON.parse('{"constructor": 1, "a": 1}');
    expect(applyMergePatch(target, { b: 2 })).toEqual({ a: 1, b: 2 });
  });

  it('builds plain objects', () => {
    const out = applyMergePatch(Object.create({ inherited: 1 }), { a: { b: 1 } }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(out.a)).toBe(Object.prototype);
    expect(out).not.toHaveProperty('inherited');
  });

  it('mergeMember: null empties the member, a refused key is a 422 naming the member path', () => {
    expect(mergeMember('settings', { a: 1 }, null)).toEqual({});
    try {
      mergeMember('settings', {}, JSON.parse('{"x": {"prototype": 1}}'));
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ProblemError);
      expect((err as ProblemError).status).toBe(422);
      expect(Object.keys((err as ProblemError).errors)).toEqual(['settings.x.prototype']);
    }
  });
});
