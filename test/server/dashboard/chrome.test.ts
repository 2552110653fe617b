import { describe, expect, it } from 'vitest';
import { grouped, tabs, withQuery, wsHref } from '../../../src/server/dashboard/chrome.js';

describe('grouped', () => {
  it.each([0, 7, 999, 1000, 1001, 9999, 67_914, 100_000, 1_000_000, 123_456_789, Number.MAX_SAFE_INTEGER])(
    '%i is written as toLocaleString("en-US") writes it',
    (n) => {
      expect(grouped(n)).toBe(n.toLocaleString('en-US'));
    },
  );

  it.each([-1234, 1234.5, Number.NaN, Infinity])(
    '%s (not a count) still reads as toLocaleString("en-US") does',
    (n) => {
      expect(grouped(n)).toBe(n.toLocaleString('en-US'));
    },
  );
});

describe('withQuery', () => {
  it('keeps the parameters that have a value, encoded as a form sends them', () => {
    expect(withQuery('/x', { channel: 'web_chat', q: 'a b&c', view: undefined, cursor: '' })).toBe(
      '/x?channel=web_chat&q=a+b%26c',
    );
    expect(withQuery('/x', {})).toBe('/x');
  });

  it('gives the parameter `set` names its own value, in its place or last', () => {
    expect(withQuery('/x', { view: 'inbox', channel: 'email' }, ['view', 'closed'])).toBe(
      '/x?view=closed&channel=email',
    );
    expect(withQuery('/x', { channel: 'email', q: 'hi' }, ['view', 'unread'])).toBe(
      '/x?channel=email&q=hi&view=unread',
    );
    expect(withQuery('/x', { view: 'inbox', channel: 'email' }, ['view', undefined])).toBe('/x?channel=email');
    expect(withQuery('/x', {}, ['status', undefined])).toBe('/x');
  });
});

describe('tabs', () => {
  it('links every value with the other filters kept, the current one marked, `&` escaped', () => {
    const out = tabs(
      '/t',
      'view',
      [
        ['inbox', 'Inbox 1,234'],
        ['unread', 'Unread 5'],
      ],
      'unread',
      { channel: 'email', q: 'x y' },
    ).text;
    expect(out).toBe(
      '<nav class="tabs" aria-label="Filter"><a href="/t?channel=email&amp;q=x+y&amp;view=inbox">Inbox 1,234</a><a href="/t?channel=email&amp;q=x+y&amp;view=unread" aria-current="page">Unread 5</a></nav>',
    );
  });
});

describe('wsHref', () => {
  it("encodes the workspace's id, for each workspace in turn", () => {
    expect(wsHref('w1', 'threads')).toBe('/dashboard/workspaces/w1/threads');
    expect(wsHref('a/b?c', 'lists')).toBe('/dashboard/workspaces/a%2Fb%3Fc/lists');
    expect(wsHref('w1')).toBe('/dashboard/workspaces/w1');
  });
});
