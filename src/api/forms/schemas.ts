import { z } from 'zod';
import { JsonObject, nonEmpty, noQuery, pagingQuery, Timestamp, Uuid, wsParam } from '../../contract/common.js';
import type { OperationId } from '../../contract/table.js';
import type { OperationSchemas } from '../../contract/route.js';

/** What the list extension shows of each form: enough to recognise it and take its id to the command that needs it. */
export const FormSummary = z
  .object({ id: Uuid, name: z.string(), field_count: z.number().int(), updated_at: Timestamp.nullable() })
  .meta({ id: 'FormSummary' });

export const FormField = z
  .strictObject({
    id: z.string().min(1).max(64),
    label: z.string().min(1).max(255),
    required: z.boolean().default(false),
    options: z.array(z.string().max(255)).max(100).optional(),
  })
  .meta({ id: 'FormField' });

const FormFields = z
  .array(FormField)
  .max(100)
  .superRefine((fields, ctx) => {
    const seen = new Map<string, number>();
    fields.forEach((f, i) => {
      if (seen.has(f.id)) {
        ctx.addIssue({
          code: 'custom',
          path: [i, 'id'],
          message: `Duplicate field id \`${f.id}\` (also at index ${seen.get(f.id)}).`,
        });
      } else seen.set(f.id, i);
    });
  });

/** A merge patch for one object member; `null` removes every key (RFC 7396 on the whole form). */
const MergeObject = JsonObject.nullable().optional();

export const UpdateFormBody = nonEmpty(
  z.strictObject({
    name: z.string().min(1).max(255).optional(),
    fields: FormFields.optional(),
    settings: MergeObject,
    design: MergeObject,
    integrations: MergeObject,
    embed: MergeObject,
  }),
).meta({
  id: 'UpdateFormBody',
  description:
    'Members sent replace stored ones; members not sent are unchanged. `settings`, `design`, `integrations` and `embed` ' +
    'merge by JSON Merge Patch (RFC 7396): a key sent as `null` is removed, a key not sent stays, nested objects merge, ' +
    'arrays replace; the member itself sent as `null` empties it (`{}`).',
});

export const Form = z
  .object({
    id: Uuid,
    name: z.string(),
    fields: z.array(
      z.object({ id: z.string(), label: z.string(), required: z.boolean(), options: z.array(z.string()).optional() }),
    ),
    settings: z.record(z.string(), z.unknown()),
    design: z.record(z.string(), z.unknown()),
    integrations: z.record(z.string(), z.unknown()),
    embed: z.record(z.string(), z.unknown()),
    updated_at: Timestamp.nullable(),
  })
  .meta({ id: 'Form' });

/** The schemas of the forms area's operations (their routes: `routes.ts`). */
export const formSchemas = {
  getForm: { params: z.strictObject({ ...wsParam, form: Uuid }), query: noQuery, body: undefined, response: Form },
  updateForm: {
    params: z.strictObject({ ...wsParam, form: Uuid }),
    query: noQuery,
    body: UpdateFormBody,
    response: Form,
  },
  listForms: { params: z.strictObject(wsParam), query: pagingQuery, body: undefined, response: FormSummary },
} satisfies Partial<Record<OperationId, OperationSchemas>>;
