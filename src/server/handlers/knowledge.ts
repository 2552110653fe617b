import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { ArticleSummary, ArticleVersion } from '../../contract/knowledge.js';
import { operations } from '../../contract/operations.js';
import type { ArticleRecord, ArticleVersionRecord, KnowledgeListRecord } from '../../store/records.js';
import type { Store, Tx } from '../../store/store.js';
import { implement, timestamp } from '../context.js';
import { pageIndex } from '../paging.js';
import { notFound, ProblemError } from '../problems.js';

type Reader = Pick<Store, 'get'> | Tx;

/** The knowledge list, if it exists in this workspace (another workspace's list is unknown here). */
function findList(store: Reader, workspace: string, id: string): KnowledgeListRecord {
  const list = store.get('knowledge_lists', id);
  if (!list || list.workspace_id !== workspace) throw notFound('knowledge_list_not_found', id);
  return list;
}

function findArticle(store: Reader, workspace: string, listId: string, id: string): ArticleRecord {
  const list = findList(store, workspace, listId);
  const article = store.get('articles', id);
  if (!article || article.list_id !== list.id) throw notFound('article_not_found', id);
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
  // article_count depends on the articles, not the list record alone: counted (an index partition's length), not cached.
  implement(operations.listKnowledgeLists, ({ params, query, store }) => {
    const articles = store.index('articlesByList');
    return pageIndex(store.index('knowledgeListsByWorkspace'), params.workspace, {
      scope: `knowledge-lists:${params.workspace}`,
      cursor: query.cursor,
      limit: query.limit,
      map: (r) => ({ id: r.id, name: r.name, article_count: articles.entries(r.id).length }),
    });
  }),
  implement(operations.listArticles, ({ params, query, store }) => {
    findList(store, params.workspace, params.list);
    return pageIndex(store.index('articlesByList'), params.list, {
      scope: `articles:${params.list}`,
      cursor: query.cursor,
      limit: query.limit,
      map: summarize,
    });
  }),
  implement(operations.getArticle, ({ params, store }) => {
    const a = findArticle(store, params.workspace, params.list, params.article);
    return { ...summarize(a), list_id: a.list_id, versions: a.versions.map(presentVersion) };
  }),
  // N is computed inside the synchronous transaction, so concurrent restores of one article get
  // distinct, consecutive numbers; the restored version itself is never changed.
  implement(operations.restoreArticleVersion, async ({ params, body, store, clock }) =>
    store.transact((tx) => {
      const article = findArticle(tx, params.workspace, params.list, params.article);
      const source = findVersion(article, params.version);
      const version: ArticleVersionRecord = {
        id: randomUUID(),
        number: article.versions[article.versions.length - 1].number + 1,
        title: source.title,
        body: source.body,
        published: body.publish,
        restored_from: source.number,
        created_at: timestamp(clock),
      };
      const next = tx.put('articles', { ...article, versions: [...article.versions, version] });
      return { article: summarize(next), version: presentVersion(version) };
    }),
  ),
];
