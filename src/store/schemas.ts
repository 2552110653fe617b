/**
 * The records of the simple collections as the store keeps them, and as store fixtures write them
 * (defaults filled in): one zod schema each, with the limits taken from the contract's schemas.
 * `records.ts` derives their TypeScript types from these (type-only, so it loads no zod), and
 * `fixtures/` validates fixtures with them. Records that the store derives or splits (tokens,
 * threads, articles, orders, OAuth) keep their own types in records.ts.
 */
import { z } from 'zod';
import { JsonObject, Uuid } from '../contract/common.js';
import { BOOKING_STATUSES, CHANNELS, VOICE_KINDS, VOICE_STATUSES } from '../contract/enums.js';
import { FormField } from '../api/forms/schemas.js';
import { CreateListingBody } from '../api/listings/schemas.js';
import { PageChatPatch, PageMembers, SuggestedReply } from '../api/pages/schemas.js';

const ts = z.iso.datetime({ offset: true });
// Already canonical (what exports write) stays as is: re-formatting 450,000 timestamps through Date
// was 10% of a 100,000-thread --seed.
const CANONICAL_TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const tsOut = ts.transform((s) => (CANONICAL_TS.test(s) ? s : new Date(s).toISOString()));

export const User = z.strictObject({ id: z.string().min(1).max(64), name: z.string(), email: z.string() });
export const Workspace = z.strictObject({
  id: Uuid,
  name: z.string().min(1).max(255),
  stripe_account_id: z.string().nullable().default(null),
  members: z.array(z.strictObject({ user_id: z.string(), role: z.enum(['owner', 'admin', 'member']) })).default([]),
});
export const Listing = z.strictObject({
  id: Uuid,
  workspace_id: Uuid,
  title: CreateListingBody.shape.title,
  // The API's own check: a template of the catalog (GET /v1/setup/listing-templates).
  template_slug: CreateListingBody.shape.template_slug,
  items: CreateListingBody.shape.items,
  button_id: Uuid.nullable().default(null),
  created_at: tsOut,
});
export const Form = z.strictObject({
  id: Uuid,
  workspace_id: Uuid,
  name: z.string(),
  fields: z.array(FormField).default([]),
  settings: JsonObject.default({}),
  design: JsonObject.default({}),
  integrations: JsonObject.default({}),
  embed: JsonObject.default({}),
  updated_at: tsOut.nullable().default(null),
});
// Limits come from the contract's writable members (PageMembers, SuggestedReply): written once.
const pm = PageMembers;
export const Page = z.strictObject({
  id: Uuid,
  workspace_id: Uuid,
  name: pm.name,
  slug: pm.slug,
  published: pm.published.default(false),
  template: pm.template.default('custom'),
  display_name: pm.display_name.default(null),
  bio: pm.bio.default(null),
  seo_title: pm.seo_title.default(null),
  seo_description: pm.seo_description.default(null),
  aeo_summary: pm.aeo_summary.default(null),
  agent_instructions: pm.agent_instructions.default(null),
  schema_type: pm.schema_type.default('WebPage'),
  chat: z
    .strictObject({
      greeting: PageChatPatch.shape.greeting,
      suggested_replies: z.array(SuggestedReply).max(10).optional(),
    })
    .default({}),
  robots_index: pm.robots_index.default(true),
  llms_enabled: pm.llms_enabled.default(true),
  updated_at: tsOut.nullable().default(null),
});
export const KnowledgeList = z.strictObject({ id: Uuid, workspace_id: Uuid, name: z.string() });
export const Message = z.strictObject({
  id: Uuid,
  channel: z.enum(CHANNELS),
  direction: z.enum(['inbound', 'outbound']),
  body: z.string(),
  created_at: tsOut,
});
export const Booking = z.strictObject({
  id: Uuid,
  workspace_id: Uuid,
  status: z.enum(BOOKING_STATUSES),
  booking_type: z.strictObject({ id: Uuid, name: z.string() }),
  contact: z.strictObject({ name: z.string().nullable().default(null), email: z.string().nullable().default(null) }),
  starts_at: tsOut,
  ends_at: tsOut,
  timezone: z.string(),
});
export const Voice = z.strictObject({
  id: Uuid,
  workspace_id: Uuid,
  kind: z.enum(VOICE_KINDS),
  from: z.string(),
  to: z.string(),
  status: z.enum(VOICE_STATUSES),
  started_at: tsOut,
  duration_seconds: z.number().int().min(0),
  transcript: z.string().nullable().default(null),
});
export const Offer = z
  .strictObject({
    id: Uuid,
    workspace_id: Uuid,
    kind: z.enum(['fixed', 'contribution']),
    title: z.string(),
    currency: z.string().regex(/^[a-z]{3}$/, 'A lowercase ISO 4217 code such as `usd`.'),
    unit_amount_minor: z.number().int().min(1).nullable().default(null),
    active: z.boolean().default(true),
  })
  .refine((o) => o.kind !== 'fixed' || o.unit_amount_minor !== null, {
    message: 'A fixed offer needs `unit_amount_minor`.',
    path: ['unit_amount_minor'],
  });
export const Agent = z.strictObject({ id: Uuid, workspace_id: Uuid, name: z.string() });
