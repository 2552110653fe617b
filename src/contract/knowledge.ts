import { z } from 'zod';
import { ARTICLE_STATUSES } from './enums.js';
import { Timestamp, Uuid } from './common.js';

export const ArticleSummary = z
  .object({
    id: Uuid,
    title: z.string(),
    status: z.enum(ARTICLE_STATUSES),
    current_version: z.number().int(),
    published_version: z.number().int().nullable(),
    updated_at: Timestamp,
  })
  .meta({ id: 'ArticleSummary' });

export const ArticleVersion = z
  .object({
    id: Uuid,
    number: z.number().int(),
    title: z.string(),
    body: z.string(),
    restored_from: z.number().int().nullable(),
    published: z.boolean(),
    created_at: Timestamp,
  })
  .meta({ id: 'ArticleVersion' });

export const Article = ArticleSummary.extend({
  list_id: Uuid,
  versions: z.array(ArticleVersion),
}).meta({ id: 'Article' });

export const RestoreVersionBody = z
  .strictObject({ publish: z.boolean().default(false) })
  .meta({ id: 'RestoreVersionBody' });

export const RestoredVersion = z
  .object({ article: ArticleSummary, version: ArticleVersion })
  .meta({ id: 'RestoredVersion' });
