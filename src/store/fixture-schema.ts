/*
 * The store fixture format's schemas (docs/fixtures.md): one per record kind
 * that is not a simple record (those are in schemas.ts, with their limits from the contract).
 */
import { z } from 'zod';
import { AbilitySchema, JsonObject, Uuid } from '../contract/common.js';
import { ORDER_STATES, SOURCE_TYPES } from '../contract/enums.js';
import { RedirectUri } from '../contract/oauth.js';
import {
  Agent,
  Booking,
  Form,
  KnowledgeList,
  Listing,
  Message,
  Offer,
  Page,
  User,
  Voice,
  Workspace,
  tsOut,
} from './schemas.js';
import type { CollectionName } from './records.js';

const TOKEN_PATTERN = /^wcm_(pat|oat)_[A-Za-z0-9]{32,}$/;

const Token = z
  .strictObject({
    token: z.string().regex(TOKEN_PATTERN, 'Must look like wcm_pat_<32+ letters and digits> or wcm_oat_…').optional(),
    token_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
    user_id: z.string(),
    name: z.string().default(''),
    abilities: z.array(AbilitySchema),
    expires_at: tsOut.nullable().default(null),
    revoked_at: tsOut.nullable().default(null),
    audience: z.string().optional(),
    workspace_ids: z.array(Uuid).optional(),
    grant_id: z.string().optional(),
    client_id: z.string().optional(),
  })
  .refine((t) => (t.token === undefined) !== (t.token_sha256 === undefined), {
    message: 'Give exactly one of `token` (in clear) or `token_sha256`.',
  });
const Article = z.strictObject({
  id: Uuid,
  list_id: Uuid,
  versions: z
    .array(
      z.strictObject({
        id: Uuid.optional(),
        number: z.number().int().min(1),
        title: z.string(),
        body: z.string(),
        published: z.boolean().default(false),
        restored_from: z.number().int().nullable().default(null),
        created_at: tsOut,
      }),
    )
    .min(1)
    .superRefine((vs, ctx) => {
      const sorted = [...vs].map((v) => v.number).sort((a, b) => a - b);
      sorted.forEach((n, i) => {
        if (n !== i + 1)
          ctx.addIssue({ code: 'custom', message: 'Version numbers must be 1, 2, … N without gaps or repeats.' });
      });
    }),
});
const Thread = z.strictObject({
  id: Uuid,
  workspace_id: Uuid,
  subject: z.string().nullable().default(null),
  status: z.enum(['open', 'closed']).default('open'),
  unread: z.boolean().default(false),
  starred: z.boolean().default(false),
  contact: z.strictObject({
    id: Uuid,
    name: z.string().nullable().default(null),
    email: z.string().nullable().default(null),
    phone: z.string().nullable().default(null),
  }),
  messages: z.array(Message).default([]),
});
const Order = z.strictObject({
  id: Uuid,
  workspace_id: Uuid,
  offer_id: Uuid,
  payment_state: z.enum(ORDER_STATES),
  quantity: z.number().int().min(1),
  amount_total: z.number().int(),
  currency: z.string(),
  application_fee_amount: z.number().int(),
  payment_intent_id: z.string(),
  provider: z.enum(['local', 'stripe']).default('local'),
  customer_name: z.string().nullable().default(null),
  customer_email: z.string().nullable().default(null),
  customer_message: z.string().nullable().default(null),
  marketing_consent: z.boolean().default(false),
  source_type: z.enum(SOURCE_TYPES).nullable().default(null),
  source_id: z.string().nullable().default(null),
  attribution: JsonObject.nullable().default(null),
  created_at: tsOut,
  updated_at: tsOut,
});
const AnalyticsEvent = z.strictObject({
  id: Uuid,
  type: z.literal('agent.chat_opened'),
  workspace_id: Uuid,
  agent_id: Uuid,
  button_id: Uuid.nullable().default(null),
  app_id: Uuid.nullable().default(null),
  occurred_at: tsOut,
});

const OAuthApp = z
  .strictObject({
    id: z.string().regex(/^wcm_app_[A-Za-z0-9]{24,}$/, 'Must look like wcm_app_<24+ letters and digits>.'),
    name: z.string().min(1).max(120),
    type: z.enum(['public', 'confidential']).default('public'),
    redirect_uris: z.array(RedirectUri).min(1).max(10),
    client_secret: z.string().min(16).optional(),
    client_secret_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable()
      .optional(),
    workspace_id: Uuid.nullable().default(null),
    created_by: z.string().nullable().optional(),
    created_at: tsOut,
  })
  .refine(
    (a) =>
      a.type === 'public'
        ? a.client_secret === undefined && !a.client_secret_sha256
        : (a.client_secret === undefined) !== !a.client_secret_sha256,
    {
      message:
        'A confidential app needs exactly one of `client_secret` (in clear) or `client_secret_sha256`; a public one neither.',
    },
  );
const OAuthGrant = z
  .strictObject({
    id: z.string().regex(/^grant_[A-Za-z0-9]{16,}$/),
    user_id: z.string(),
    client_id: z.string(),
    abilities: z.array(AbilitySchema),
    workspace_ids: z.array(Uuid),
    audience: z.string(),
    refresh_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable()
      .default(null),
    refresh_expires_at: tsOut.nullable().default(null),
    refresh_generation: z.number().int().min(0).default(0),
    /** Kept before the generation counter; read and dropped (the counter starts at its length). */
    used_refresh_sha256: z.array(z.string().regex(/^[0-9a-f]{64}$/)).optional(),
    created_at: tsOut,
    revoked_at: tsOut.nullable().default(null),
  })
  .transform(({ used_refresh_sha256, ...g }) => ({
    ...g,
    refresh_generation: Math.max(g.refresh_generation, used_refresh_sha256?.length ?? 0),
  }));

/** The store fixture format (docs/fixtures.md), plus `orders` and `analytics_events` that exports carry. */
export const FixtureSchema = z.strictObject({
  version: z.literal(1),
  users: z.array(User).optional(),
  workspaces: z.array(Workspace).optional(),
  tokens: z.array(Token).optional(),
  listings: z.array(Listing).optional(),
  forms: z.array(Form).optional(),
  pages: z.array(Page).optional(),
  knowledge_lists: z.array(KnowledgeList).optional(),
  articles: z.array(Article).optional(),
  threads: z.array(Thread).optional(),
  bookings: z.array(Booking).optional(),
  voice_interactions: z.array(Voice).optional(),
  offers: z.array(Offer).optional(),
  agents: z.array(Agent).optional(),
  orders: z.array(Order).optional(),
  analytics_events: z.array(AnalyticsEvent).optional(),
  oauth_apps: z.array(OAuthApp).optional(),
  oauth_grants: z.array(OAuthGrant).optional(),
});
export type Fixture = z.input<typeof FixtureSchema>;

/** The collections a fixture holds, in dependency order (referenced before referencing). */
export const FIXTURE_COLLECTIONS = [
  'users',
  'workspaces',
  'tokens',
  'listings',
  'forms',
  'pages',
  'knowledge_lists',
  'articles',
  'threads',
  'bookings',
  'voice_interactions',
  'offers',
  'agents',
  'orders',
  'analytics_events',
  'oauth_apps',
  'oauth_grants',
] as const satisfies ReadonlyArray<CollectionName>;
