import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFields, parseHeaders, parseTypedValue } from '../../src/cli/fields.js';
import { parseSetValue } from '../../src/cli/set-flag.js';
import { tempDir } from '../support/server.js';

describe('parseTypedValue (-F and --set)', () => {
  it.each([
    ['12', 12],
    ['-1.5', -1.5],
    ['1e3', 1000],
    ['007', '007'],
    ['0x10', '0x10'],
    ['true', true],
    ['false', false],
    ['null', null],
    ['True', 'True'],
    ['{"a":1}', { a: 1 }],
    ['[1,"x"]', [1, 'x']],
    ['{not json', '{not json'],
    ['hello world', 'hello world'],
    ['', ''],
    ['99999999999999999999', '99999999999999999999'],
    ['"2026"', '2026'],
    ['"true"', 'true'],
    ['"unterminated', '"unterminated'],
  ])('%j → %j', (raw, expected) => {
    expect(parseTypedValue(raw, { cwd: '/' })).toEqual(expected);
    // One rule for both flags (docs/cli.md, "Typed values").
    expect(parseSetValue(raw, { cwd: '/' })).toEqual(expected);
  });

  it('@- is standard input (read once by the command); without it, a usage error naming the flag', () => {
    expect(parseTypedValue('@-', { cwd: '/', stdin: 'piped\n' })).toBe('piped\n');
    expect(() => parseSetValue('@-', { cwd: '/' })).toThrowError(/`--set …=@-` reads standard input/);
  });

  it('@file reads the file as text', () => {
    const d = tempDir();
    try {
      writeFileSync(path.join(d.dir, 'bio.txt'), 'line 1\nline 2\n');
      expect(parseTypedValue('@bio.txt', { cwd: d.dir })).toBe('line 1\nline 2\n');
      expect(() => parseTypedValue('@missing.txt', { cwd: d.dir })).toThrowError(
        /`-F …=@missing.txt`: cannot read .*missing\.txt \(ENOENT\)/,
      );
    } finally {
      d.cleanup();
    }
  });
});

const typed = (fields: string[]) => fields.map((assignment) => ({ assignment, typed: true }));
const raw = (fields: string[]) => fields.map((assignment) => ({ assignment, typed: false }));

describe('buildFields', () => {
  it.each([
    [['title=FAQ', 'template_slug=faq'], { title: 'FAQ', template_slug: 'faq' }],
    [['quantity=2', 'marketing_consent=true'], { quantity: 2, marketing_consent: true }],
    [['settings[theme]=dark', 'settings[size]=3'], { settings: { theme: 'dark', size: 3 } }],
    [['tags[]=a', 'tags[]=b'], { tags: ['a', 'b'] }],
    [
      ['items[][title]=Q1', 'items[][description]=A1', 'items[][title]=Q2'],
      { items: [{ title: 'Q1', description: 'A1' }, { title: 'Q2' }] },
    ],
    [['note=a=b'], { note: 'a=b' }],
  ])('-F %j', (fields, expected) => expect(buildFields(typed(fields), { cwd: '/' })).toEqual(expected));

  it.each([
    [['title=2026'], { title: '2026' }],
    [['title="2026"'], { title: '"2026"' }],
    [['flag=true', 'n=null', 'bio=@bio.txt'], { flag: 'true', n: 'null', bio: '@bio.txt' }],
    [['tags[]=1', 'tags[]=x'], { tags: ['1', 'x'] }],
  ])('-f %j: strings as written, as gh api -f', (fields, expected) =>
    expect(buildFields(raw(fields), { cwd: '/' })).toEqual(expected),
  );

  it.each([
    ['novalue', /must look like key=value/],
    ['=x', /must look like key=value/],
    ['a]b=1', /is not a field name/],
  ])('%s is a usage error', (field, message) =>
    expect(() => buildFields(typed([field]), { cwd: '/' })).toThrowError(message),
  );
});

describe('parseHeaders', () => {
  it('keys headers in lower case and keeps colons in values', () => {
    expect(parseHeaders(['Idempotency-Key: abc:def', 'X-A:1'])).toEqual({ 'idempotency-key': 'abc:def', 'x-a': '1' });
    expect(() => parseHeaders(['bad'])).toThrowError(/must look like "Name: value"/);
  });
});
