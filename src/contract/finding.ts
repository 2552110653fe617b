import { z } from 'zod';
import { PagingQuery, Timestamp, Uuid } from './common.js';

/**
 * What the list extensions (docs/cli.md: Finding ids) show of each record: enough to recognise it and take
 * its id to the command that needs it (`wcm forms update ID`, `wcm commerce pay ID`, …).
 */
export const FormSummary = z
  .object({ id: Uuid, name: z.string(), field_count: z.number().int(), updated_at: Timestamp.nullable() })
  .meta({ id: 'FormSummary' });

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

export const KnowledgeListSummary = z
  .object({ id: Uuid, name: z.string(), article_count: z.number().int() })
  .meta({ id: 'KnowledgeListSummary' });

export const OfferSummary = z
  .object({
    id: Uuid,
    kind: z.enum(['fixed', 'contribution']),
    title: z.string(),
    currency: z.string(),
    unit_amount_minor: z.number().int().nullable(),
    active: z.boolean(),
  })
  .meta({ id: 'OfferSummary' });

export const AgentSummary = z.object({ id: Uuid, name: z.string() }).meta({ id: 'AgentSummary' });
