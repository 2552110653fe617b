import type { Route } from '../route.js';

/** The knowledge area's operations, zod-free (the CLI finds its URLs without loading a schema); schemas in `../knowledge.ts`. */
export const knowledgeRoutes = {
  listKnowledgeLists: {
    method: 'GET', path: '/workspaces/{workspace}/knowledge-lists', tag: 'Knowledge', summary: 'List the workspace\'s knowledge lists, by name', access: 'bearer', ability: 'content:read', status: 200, list: true, extension: true, notFound: {workspace: 'workspace_not_found'},
  },
  listArticles: {
    method: 'GET', path: '/workspaces/{workspace}/knowledge-lists/{list}/articles', tag: 'Knowledge', summary: 'List the articles of a knowledge list', access: 'bearer', ability: 'content:read', status: 200, list: true, notFound: {workspace: 'workspace_not_found', list: 'knowledge_list_not_found'},
  },
  getArticle: {
    method: 'GET', path: '/workspaces/{workspace}/knowledge-lists/{list}/articles/{article}', tag: 'Knowledge', summary: 'Get an article with all its versions', access: 'bearer', ability: 'content:read', status: 200, extension: true, notFound: {workspace: 'workspace_not_found', list: 'knowledge_list_not_found', article: 'article_not_found'},
  },
  restoreArticleVersion: {
    method: 'POST', path: '/workspaces/{workspace}/knowledge-lists/{list}/articles/{article}/versions/{version}/restore', tag: 'Knowledge', summary: 'Restore an article version as a new current version', description: '`version` is a version number (1, 2, …) or a version id.', access: 'bearer', ability: 'content:write', status: 201, bodyOptional: true, notFound: {workspace: 'workspace_not_found', list: 'knowledge_list_not_found', article: 'article_not_found', version: 'version_not_found'},
    example: { body: { publish: false } },
  },
} as const satisfies Record<string, Route>;
