import { z } from 'zod';
import { ARTICLE_STATUSES } from '../../contract/enums.js';
import { noQuery, pagingQuery, Timestamp, Uuid, wsParam } from '../../contract/common.js';
import type { OperationId } from '../../contract/table.js';
import type { OperationSchemas } from '../../contract/route.js';

/** What the list extension shows of each knowledge list: enough to recognise it and take its id to the command that needs it. */
export const KnowledgeListSummary = z
  .object({ id: Uuid, name: z.string(), article_count: z.number().int() })
  .meta({ id: 'KnowledgeListSummary' });

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

/** The schemas of the knowledge area's operations (their routes: `routes.ts`). */
export const knowledgeSchemas = {
  listKnowledgeLists: {
    params: z.strictObject(wsParam),
    query: pagingQuery,
    body: undefined,
    response: KnowledgeListSummary,
  },
  listArticles: {
    params: z.strictObject({ ...wsParam, list: Uuid }),
    query: pagingQuery,
    body: undefined,
    response: ArticleSummary,
  },
  getArticle: {
    params: z.strictObject({ ...wsParam, list: Uuid, article: Uuid }),
    query: noQuery,
    body: undefined,
    response: Article,
  },
  restoreArticleVersion: {
    params: z.strictObject({ ...wsParam, list: Uuid, article: Uuid, version: z.string().min(1).max(64) }),
    query: noQuery,
    body: RestoreVersionBody,
    response: RestoredVersion,
  },
} satisfies Partial<Record<OperationId, OperationSchemas>>;
