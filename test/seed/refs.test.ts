import { describe, expect, it } from 'vitest';
import { asText, jsonPath, parseTemplate, substitute, valueAt, wholeRef, type Ref } from '../../src/seed/refs.js';

describe('parseTemplate', () => {
  it.each([
    ['plain text', ['plain text']],
    ['', ['']],
    [
      '${faq:data.id}',
      [{ kind: 'step', step: 'faq', path: ['data', 'id'], default: undefined, raw: '${faq:data.id}' }],
    ],
    [
      '${faq:data.items.0.title}',
      [
        {
          kind: 'step',
          step: 'faq',
          path: ['data', 'items', '0', 'title'],
          default: undefined,
          raw: '${faq:data.items.0.title}',
        },
      ],
    ],
    [
      '${env:HOME_PAGE_ID|0845b14f}',
      [{ kind: 'env', name: 'HOME_PAGE_ID', default: '0845b14f', raw: '${env:HOME_PAGE_ID|0845b14f}' }],
    ],
    ['${env:X|}', [{ kind: 'env', name: 'X', default: '', raw: '${env:X|}' }]],
    ['${env:X|a:b|c}', [{ kind: 'env', name: 'X', default: 'a:b|c', raw: '${env:X|a:b|c}' }]],
    [
      'See ${faq:data.dashboard_url}!',
      [
        'See ',
        {
          kind: 'step',
          step: 'faq',
          path: ['data', 'dashboard_url'],
          default: undefined,
          raw: '${faq:data.dashboard_url}',
        },
        '!',
      ],
    ],
    ['price $5 and $${literal}', ['price $5 and ${literal}']],
  ] as Array<[string, unknown[]]>)('%j', (input, parts) => {
    expect(parseTemplate(input)).toEqual({ parts });
  });

  it.each([
    ['${faq:data.id', /has no closing `}`/],
    ['${faq}', /is not a reference/],
    ['${env:1BAD}', /not an environment variable name/],
    ['${my step:data}', /is not a step name/],
    ['${faq:}', /needs a path into the step's response/],
    ['${faq:data..id}', /has an empty segment/],
  ])('rejects %j', (input, message) => {
    expect(parseTemplate(input).error).toMatch(message);
  });

  it('treats only a string that is exactly one reference as whole', () => {
    expect(wholeRef(parseTemplate('${a:data}').parts!)).not.toBeNull();
    expect(wholeRef(parseTemplate(' ${a:data}').parts!)).toBeNull();
    expect(wholeRef(parseTemplate('${a:data}${b:data}').parts!)).toBeNull();
  });
});

describe('substitute', () => {
  const values: Record<string, unknown> = { n: 42, b: true, o: { x: 1 }, s: 'text', z: null };
  const resolve = {
    whole: (ref: Ref) => (ref.kind === 'step' ? values[ref.step] : `env:${ref.name}`),
    text: (ref: Ref) => asText(ref.kind === 'step' ? values[ref.step] : `env:${ref.name}`),
  };
  it.each([
    ['${n:data}', 42],
    ['${b:data}', true],
    ['${o:data}', { x: 1 }],
    ['${z:data}', null],
    ['n=${n:data}', 'n=42'],
    ['${s:data} and ${o:data}', 'text and {"x":1}'],
    ['${env:HOME}/x', 'env:HOME/x'],
  ])('%j → %j (one reference keeps its JSON type; inside text it becomes text)', (input, out) => {
    expect(substitute(input, resolve)).toEqual(out);
  });

  it('walks objects and arrays, and passes non-strings through', () => {
    expect(substitute({ a: ['${n:data}', 3, false, null], b: { c: 'x${s:data}' } }, resolve)).toEqual({
      a: [42, 3, false, null],
      b: { c: 'xtext' },
    });
  });
});

describe('valueAt and jsonPath', () => {
  it('follows members and list indexes, and says undefined when a segment is missing', () => {
    const env = { data: { id: 'a', items: [{ title: 'Q' }] }, meta: { request_id: 'r' } };
    expect(valueAt(env, ['data', 'items', '0', 'title'])).toBe('Q');
    expect(valueAt(env, ['data', 'items', '1', 'title'])).toBeUndefined();
    expect(valueAt(env, ['data', 'items', 'first'])).toBeUndefined();
    expect(valueAt(env, ['data', 'toString'])).toBeUndefined();
  });
  it('writes $.a[0].b and quotes odd keys', () => {
    expect(jsonPath(['steps', 2, 'body', 'items', 0, 'title'])).toBe('$.steps[2].body.items[0].title');
    expect(jsonPath(['params', 'x-y'])).toBe('$.params["x-y"]');
  });
});
