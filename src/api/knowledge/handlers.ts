import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { ArticleSummary, ArticleVersion } from './schemas.js';
import { operations } from '../../contract/operations.js';
import type { ArticleRecord, ArticleVersionRecord, KnowledgeListRecord } from '../../store/records.js';
import { implement, txTimestamp } from '../../server/context.js';
import { pageRecords } from '../../server/paging.js';
import { notFound, ProblemError } from '../../server/problems.js';

/** The list read, if it is in this workspace (another workspace's list is unknown here). */
function ownList(list: KnowledgeListRecord | undefined, workspace: string, id: string): KnowledgeListRecord {
  if (!list || list.workspace_id !== workspace) throw notFound('knowledge_list_not_found', id);
  return list;
}

/** The article read, if its list (read with it) is in this workspace and holds it. */
function ownArticle(
  list: KnowledgeListRecord | undefined,
  article: ArticleRecord | undefined,
  p: { workspace: string; list: string; article: string },
): ArticleRecord {
  ownList(list, p.workspace, p.list);
  if (!article || article.list_id !== p.list) throw notFound('article_not_found', p.article);
  return article;
}

/** `{version}` is a number (`3`) or a version id: digits only means a number. */
function findVersion(article: ArticleRecord, ref: string): ArticleVersionRecord {
  const byNumber = /^[0-9]{1,9}$/.test(ref);
  const v = byNumber
    ? article.versions.find((x) => x.number === Number(ref))
    : article.versions.find((x) => x.id === ref);
  if (v) return v;
  const last = article.versions[article.versions.length - 1].number;
  throw new ProblemError('version_not_found', {
    detail: byNumber
      ? `Article \`${article.id}\` has no version ${ref}; its versions are 1 to ${last}.`
      : `Article \`${article.id}\` has no version with id \`${ref}\`.`,
    resolution: `Pass a version number (1 to ${last}) or a version id of this article: \`wcm articles show ${article.list_id} ${article.id}\` lists them (getArticle in the API).`,
  });
}

/** The article with version `ref` copied as its new current version (which says it was restored from it). */
function withRestored(article: ArticleRecord, ref: string, publish: boolean, now: string) {
  const source = findVersion(article, ref);
  const version: ArticleVersionRecord = {
    id: randomUUID(),
    number: article.versions[article.versions.length - 1].number + 1,
    title: source.title,
    body: source.body,
    published: publish,
    restored_from: source.number,
    created_at: now,
  };
  return { next: { ...article, versions: [...article.versions, version] }, version };
}

/**
 * What a list shows of an article (docs/api-behaviour.md). Versions are kept in number order;
 * the current one is the highest, the published one the highest with `published: true`, so earlier
 * versions never need to change when a later one is published.
 */
export function summarize(a: ArticleRecord): z.input<typeof ArticleSummary> {
  const current = a.versions[a.versions.length - 1];
  const published = a.versions.findLast((v) => v.published);
  return {
    id: a.id,
    title: current.title,
    status: published ? 'published' : 'draft',
    current_version: current.number,
    published_version: published ? published.number : null,
    updated_at: current.created_at,
  };
}

function presentVersion(v: ArticleVersionRecord): z.input<typeof ArticleVersion> {
  return {
    id: v.id,
    number: v.number,
    title: v.title,
    body: v.body,
    restored_from: v.restored_from,
    published: v.published,
    created_at: v.created_at,
  };
}

export const knowledgeHandlers = [
  // article_count depends on the articles, not the list record alone: counted (an index partition's
  // length), not cached; in the same read as the page, so the counts are of the lists shown.
  implement(operations.listKnowledgeLists, async ({ params, query, db }) =>
    db.read(async (tx) => {
      const page = await pageRecords(tx, 'knowledgeListsByWorkspace', params.workspace, {
        scope: `knowledge-lists:${params.workspace}`,
        cursor: query.cursor,
        limit: query.limit,
        map: (r) => r,
      });
      const counts = await Promise.all(page.items.map((r) => tx.count('articles', 'articlesByList', r.id)));
      return {
        items: page.items.map((r, i) => ({ id: r.id, name: r.name, article_count: counts[i] })),
        next_cursor: page.next_cursor,
      };
    }),
  ),
  implement(operations.listArticles, async ({ params, query, db }) =>
    db.read(async (tx) => {
      ownList(await tx.get('knowledge_lists', params.list), params.workspace, params.list);
      return pageRecords(tx, 'articlesByList', params.list, {
        scope: `articles:${params.list}`,
        cursor: query.cursor,
        limit: query.limit,
        map: summarize,
      });
    }),
  ),
  implement(operations.getArticle, async ({ params, db }) => {
    const [list, article] = await db.read((tx) =>
      Promise.all([tx.get('knowledge_lists', params.list), tx.get('articles', params.article)]),
    );
    const a = ownArticle(list, article, params);
    return { ...summarize(a), list_id: a.list_id, versions: a.versions.map(presentVersion) };
  }),
  // N is computed in the transaction that writes it, the article read (and locked) first, so
  // concurrent restores of one article get distinct, consecutive numbers; the restored version
  // itself is never changed.
  implement(operations.restoreArticleVersion, async ({ params, body, db }) =>
    db.write(async (tx) => {
      const list = await tx.get('knowledge_lists', params.list);
      const article = ownArticle(list, await tx.get('articles', params.article), params);
      const { next, version } = withRestored(article, params.version, body.publish, await txTimestamp(tx));
      return { article: summarize(await tx.put('articles', next)), version: presentVersion(version) };
    }),
  ),
];
