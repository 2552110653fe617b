// `wcm forms` through the run(options, factory) seam: flags become the request, bad ones are refused
// before any request. Against the real server: articles.server.test.ts (forms update) and finding.server.test.ts.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import formsLs from '../../commands/forms/ls.js';
import formsShow from '../../commands/forms/show.js';
import formsUpdate from '../../commands/forms/update.js';
import { SEAM_WS, record, seamHarness, type SeamHarness } from './harness.js';

const FORM = 'e5bfd74f-95a3-4f41-b615-83ee8cf45bca';
const form = {
  id: FORM,
  name: 'Contact',
  fields: [{ id: 'email', label: 'Email', required: true }],
  settings: {},
  design: {},
  integrations: {},
  embed: {},
  updated_at: null,
};
const fields = [{ id: 'name', label: 'Name', required: false }];

let h: SeamHarness;
beforeEach(async () => {
  h = await seamHarness((req) => (/\/forms(\?|$)/.test(req.url) ? record([]) : record(form)));
});
afterEach(() => h.close());
const file = (name: string, content: unknown) => {
  const p = path.join(h.cwd, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return name;
};
const refused = (opts: object) => h.refused(formsUpdate, { args: [FORM], ...opts });

describe('wcm forms ls / show (run seam)', () => {
  it("ls lists the workspace's forms; --limit and --cursor pass through", async () => {
    expect(await h.run(formsLs)).toBe(0);
    expect(h.request(0)).toEqual({ method: 'GET', path: `/workspaces/${SEAM_WS}/forms`, query: {} });
    await h.run(formsLs, { limit: '3', cursor: 'c' });
    expect(h.request(1).query).toEqual({ limit: '3', cursor: 'c' });
  });

  it('show FORM gets that form and prints it as key/value lines', async () => {
    expect(await h.run(formsShow, { args: [FORM] })).toBe(0);
    expect(h.request()).toEqual({ method: 'GET', path: `/workspaces/${SEAM_WS}/forms/${FORM}`, query: {} });
    expect(h.io.out()).toContain('fields\temail*\n');
  });
});

describe('wcm forms update (run seam)', () => {
  it('--name alone: a PATCH of that form with {name} and nothing else', async () => {
    expect(await h.run(formsUpdate, { args: [FORM], name: 'Catering request' })).toBe(0);
    expect(h.request()).toEqual({ method: 'PATCH', path: `/workspaces/${SEAM_WS}/forms/${FORM}`, query: {} });
    expect(h.body()).toEqual({ name: 'Catering request' });
  });

  it('--fields-file: a bare array or {"fields": [...]} both become `fields`', async () => {
    await h.run(formsUpdate, { args: [FORM], fieldsFile: file('a.json', fields) });
    await h.run(formsUpdate, { args: [FORM], fieldsFile: file('o.json', { fields }) });
    expect(h.body(0)).toEqual({ fields });
    expect(h.body(1)).toEqual({ fields });
  });

  it('--file is the body; --name and --fields-file override its members', async () => {
    const patch = { name: 'old', fields: [], settings: { notify_email: null } };
    await h.run(formsUpdate, {
      args: [FORM],
      file: file('p.json', patch),
      name: 'New',
      fieldsFile: file('f.json', fields),
    });
    expect(h.body()).toEqual({ name: 'New', fields, settings: { notify_email: null } });
  });

  it('--file holding {} is sent as is (the server answers with the form unchanged)', async () => {
    await h.run(formsUpdate, { args: [FORM], file: file('e.json', {}) });
    expect(h.body()).toEqual({});
  });

  it('no flag at all: "Nothing to change." with the flags to pass, nothing sent', async () => {
    expect(await refused({})).toBe('Nothing to change.');
  });

  it('a --fields-file that is neither an array nor {"fields": [...]}: a usage error with an example', async () => {
    expect(await refused({ fieldsFile: file('x.json', { name: 'x' }) })).toMatch(
      /^`--fields-file` must hold a JSON array of fields, e\.g\. \[/,
    );
  });

  it('a --fields-file that is not JSON, or missing: the flag and the file named', async () => {
    expect(await refused({ fieldsFile: file('bad.json', '[{') })).toContain('`--fields-file`: ');
    expect(await refused({ fieldsFile: 'gone.json' })).toBe(
      `\`--fields-file\`: cannot read ${path.join(h.cwd, 'gone.json')} (ENOENT).`,
    );
  });

  it('a --file that is not one JSON object: a usage error saying what it must hold', async () => {
    expect(await refused({ file: file('arr.json', [1]) })).toBe(
      '`--file` must hold one JSON object: the request body (e.g. {"name": "…"}).',
    );
  });
});
