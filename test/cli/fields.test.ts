import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFields, parseFieldValue, parseHeaders } from '../../src/cli/fields.js';
import { tempDir } from '../support/server.js';

describe('parseFieldValue', () => {
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
  ])('%j → %j', (raw, expected) => expect(parseFieldValue(raw, '/')).toEqual(expected));

  it('@file reads the file as text', () => {
    const d = tempDir();
    try {
      writeFileSync(path.join(d.dir, 'bio.txt'), 'line 1\nline 2\n');
      expect(parseFieldValue('@bio.txt', d.dir)).toBe('line 1\nline 2\n');
      expect(() => parseFieldValue('@missing.txt', d.dir)).toThrowError(/cannot read .*missing\.txt \(ENOENT\)/);
    } finally {
      d.cleanup();
    }
  });
});

describe('buildFields', () => {
  it.each([
    [['title=FAQ', 'template_slug=faq'], { title: 'FAQ', template_slug: 'faq' }],
    [['quantity=2', 'marketing_consent=true'], { quantity: 2, marketing_consent: true }],
    [['settings[theme]=dark', 'settings[size]=3'], { settings: { theme: 'dark', size: 3 } }],
    [['tags[]=a', 'tags[]=b'], { tags: ['a', 'b'] }],
    [['items[][title]=Q1', 'items[][description]=A1', 'items[][title]=Q2'], { items: [{ title: 'Q1', description: 'A1' }, { title: 'Q2' }] }],
    [['note=a=b'], { note: 'a=b' }],
  ])('%j', (fields, expected) => expect(buildFields(fields, '/')).toEqual(expected));

  it.each([
    ['novalue', /must look like key=value/],
    ['=x', /must look like key=value/],
    ['a]b=1', /is not a field name/],
  ])('%s is a usage error', (field, message) => expect(() => buildFields([field], '/')).toThrowError(message));
});

describe('parseHeaders', () => {
  it('keys headers in lower case and keeps colons in values', () => {
    expect(parseHeaders(['Idempotency-Key: abc:def', 'X-A:1'])).toEqual({ 'idempotency-key': 'abc:def', 'x-a': '1' });
    expect(() => parseHeaders(['bad'])).toThrowError(/must look like "Name: value"/);
  });
});
