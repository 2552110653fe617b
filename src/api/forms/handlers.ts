import type { z } from 'zod';
import type { Form, UpdateFormBody } from './schemas.js';
import { operations } from '../../contract/operations.js';
import type { FormRecord } from '../../store/records.js';
import { implement, txTimestamp } from '../../server/context.js';
import { mergeMember } from '../../server/merge-patch.js';
import { cachedJson, pageRecords } from '../../server/paging.js';
import { notFound } from '../../server/problems.js';

const OBJECT_MEMBERS = ['settings', 'design', 'integrations', 'embed'] as const;

/** The form read, if it is in this workspace: another workspace's form is as unknown as a missing one. */
function ownForm(form: FormRecord | undefined, workspace: string, id: string): FormRecord {
  if (!form || form.workspace_id !== workspace) throw notFound('form_not_found', id);
  return form;
}

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
  implement(operations.getForm, async ({ params, db }) =>
    present(ownForm(await db.read((tx) => tx.get('forms', params.form)), params.workspace, params.form)),
  ),
  // Read, merge and write in one transaction (the read locks the form): two concurrent patches both land.
  implement(operations.updateForm, async ({ params, body, db }) =>
    present(
      await db.write(async (tx) =>
        tx.put(
          'forms',
          updated(
            ownForm(await tx.get('forms', params.form), params.workspace, params.form),
            body,
            await txTimestamp(tx),
          ),
        ),
      ),
    ),
  ),
];
