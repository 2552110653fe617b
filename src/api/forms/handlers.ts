import type { z } from 'zod';
import type { Form, UpdateFormBody } from './schemas.js';
import { operations } from '../../contract/operations.js';
import type { FormRecord } from '../../store/records.js';
import { implement } from '../../server/context.js';
import { ownRecords } from '../own.js';
import { mergeMember } from '../../server/merge-patch.js';
import { cachedJson, pageRecords } from '../../server/paging.js';

const OBJECT_MEMBERS = ['settings', 'design', 'integrations', 'embed'] as const;

const forms = ownRecords('forms', 'form_not_found');

function present(rec: FormRecord): z.input<typeof Form> {
  const { workspace_id: _w, ...form } = rec;
  return form;
}

function updated(rec: FormRecord, body: z.output<typeof UpdateFormBody>, now: string): FormRecord {
  const next: FormRecord = { ...rec, updated_at: now };
  if (body.name !== undefined) next.name = body.name;
  if (body.fields !== undefined) {
    next.fields = body.fields.map((f) =>
      f.options === undefined
        ? { id: f.id, label: f.label, required: f.required }
        : { id: f.id, label: f.label, required: f.required, options: [...f.options] },
    );
  }
  for (const m of OBJECT_MEMBERS) {
    const patch = body[m];
    if (patch !== undefined) next[m] = mergeMember(m, rec[m], patch);
  }
  return next;
}

const summarize = cachedJson((r: FormRecord) => ({
  id: r.id,
  name: r.name,
  field_count: r.fields.length,
  updated_at: r.updated_at,
}));

export const formHandlers = [
  implement(operations.listForms, ({ params, query, db }) =>
    pageRecords(db, 'formsByWorkspace', params.workspace, {
      scope: `forms:${params.workspace}`,
      cursor: query.cursor,
      limit: query.limit,
      map: summarize,
    }),
  ),
  implement(operations.getForm, async ({ params, db }) => present(await forms.get(db, params.workspace, params.form))),
  implement(operations.updateForm, async ({ params, body, db }) =>
    present(await forms.patch(db, params.workspace, params.form, (rec, now) => updated(rec, body, now))),
  ),
];
