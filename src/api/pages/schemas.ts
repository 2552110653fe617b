import { z } from 'zod';
import { SCHEMA_TYPES } from '../../contract/enums.js';
import { nonEmpty, noQuery, PagingQuery, Timestamp, Uuid, wsParam } from '../../contract/common.js';
import type { OperationId } from '../../contract/table.js';
import type { OperationSchemas } from '../../contract/route.js';

/** What the list extension shows of each page: enough to recognise it and take its id to the command that needs it. */
export const PageSummary = z
  .object({ id: Uuid, name: z.string(), slug: z.string(), published: z.boolean(), updated_at: Timestamp.nullable() })
  .meta({ id: 'PageSummary' });
export const PagesQuery = z.strictObject({
  // A string enum, not a coerced boolean: `published=yes` or `published=1` is refused, not guessed.
  published: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: 'Only published (`true`) or unpublished (`false`) pages.' }),
  ...PagingQuery,
});

export const SLUG_PATTERN = /^[a-z0-9_-]+$/;
/** `custom`, or `<service>_contact` such as `whatsapp_contact`. */
export const TEMPLATE_PATTERN = /^(custom|[a-z0-9]+(_[a-z0-9]+)*_contact)$/;

export const SuggestedReply = z
  .strictObject({
    id: Uuid,
    label: z.string().min(1).max(255),
    event_label: z.string().max(255).optional(),
    message: z.string().max(2000).optional(),
    featured: z.boolean().optional(),
    operation: z.literal('message').optional(),
  })
  .meta({ id: 'SuggestedReply' });

export const PageChatPatch = z
  .strictObject({
    greeting: z.string().max(500).nullable().optional(),
    suggested_replies: z.array(SuggestedReply).max(10).nullable().optional(),
  })
  .meta({ id: 'PageChatPatch' });

const text = (max: number) => z.string().max(max).nullable();

/**
 * A page's writable members with their limits, written once: the update body makes each optional,
 * the store fixture gives each a default.
 */
export const PageMembers = {
  name: z.string().min(1).max(255),
  slug: z
    .string()
    .min(1)
    .max(255)
    .regex(SLUG_PATTERN, 'Must match ^[a-z0-9_-]+$ (lowercase letters, digits, _ and -).'),
  published: z.boolean(),
  template: z
    .string()
    .max(255)
    .regex(TEMPLATE_PATTERN, 'Must be `custom` or `<service>_contact`, e.g. `whatsapp_contact`.'),
  display_name: text(255),
  bio: text(500),
  seo_title: text(255),
  seo_description: text(500),
  aeo_summary: text(2000),
  agent_instructions: text(2000),
  schema_type: z.enum(SCHEMA_TYPES),
  robots_index: z.boolean(),
  llms_enabled: z.boolean(),
};
const m = PageMembers;

export const UpdatePageBody = nonEmpty(
  z.strictObject({
    name: m.name.optional(),
    slug: m.slug.optional(),
    published: m.published.optional(),
    template: m.template.optional(),
    display_name: m.display_name.optional(),
    bio: m.bio.optional(),
    seo_title: m.seo_title.optional(),
    seo_description: m.seo_description.optional(),
    aeo_summary: m.aeo_summary.optional(),
    agent_instructions: m.agent_instructions.optional(),
    schema_type: m.schema_type.optional(),
    chat: PageChatPatch.nullable().optional(),
    robots_index: m.robots_index.optional(),
    llms_enabled: m.llms_enabled.optional(),
  }),
).meta({
  id: 'UpdatePageBody',
  description:
    'Members sent replace stored ones; members not sent are unchanged; `null` clears an optional text member. ' +
    '`chat` merges by JSON Merge Patch (RFC 7396): `greeting: null` removes the greeting, `suggested_replies` replaces ' +
    'the whole list, `chat: null` empties it. `published` moves the page to the value sent.',
});

export const Page = z
  .object({
    id: Uuid,
    name: z.string(),
    slug: z.string(),
    published: z.boolean(),
    template: z.string(),
    display_name: z.string().nullable(),
    bio: z.string().nullable(),
    seo_title: z.string().nullable(),
    seo_description: z.string().nullable(),
    aeo_summary: z.string().nullable(),
    agent_instructions: z.string().nullable(),
    schema_type: z.enum(SCHEMA_TYPES),
    chat: z.object({
      greeting: z.string().nullable().optional(),
      suggested_replies: z.array(SuggestedReply).optional(),
    }),
    robots_index: z.boolean(),
    llms_enabled: z.boolean(),
    updated_at: Timestamp.nullable(),
  })
  .meta({ id: 'Page' });

/** The schemas of the pages area's operations (their routes: `routes.ts`). */
export const pageSchemas = {
  getPage: { params: z.strictObject({ ...wsParam, page: Uuid }), query: noQuery, body: undefined, response: Page },
  updatePage: {
    params: z.strictObject({ ...wsParam, page: Uuid }),
    query: noQuery,
    body: UpdatePageBody,
    response: Page,
  },
  listPages: { params: z.strictObject(wsParam), query: PagesQuery, body: undefined, response: PageSummary },
} satisfies Partial<Record<OperationId, OperationSchemas>>;
