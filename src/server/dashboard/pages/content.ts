import type { FormRecord, PageRecord } from '../../../store/records.js';
import { html, type Html } from '../../web/html.js';
import { badge, facts, idCode, jsonBlock, pager, seg, table, tabs, when, wsHref, yesNo, type View } from '../chrome.js';
import { callOperation, listPage, recordsById, type Row } from '../data.js';
import { param, type WorkspaceRequest } from '../request.js';

const crumbsOf = (r: WorkspaceRequest, ...more: Array<[string, string]>): Array<[string, string]> => [
  [r.workspace.name, wsHref(r.workspace.id)],
  ...more,
];

/** `…/lists`: the workspace's listings, newest first (listListings). */
export async function listingsView(r: WorkspaceRequest): Promise<View> {
  const w = r.workspace.id;
  const cursor = param(r.query, 'cursor');
  const page = await listPage(r, 'listListings', { workspace: w }, { cursor });
  const recs = await r.db.read((tx) => recordsById(tx, 'listings', page.ids()));
  const rows = page.rows(w, (item) => {
    const rec = recs.get(item.id);
    return html`<tr><td><a href="${wsHref(w, `lists/${seg(item.id)}`)}">${item.title}</a><span class="sub mono">${item.id}</span></td><td>${rec?.template_slug ?? ''}</td><td class="num">${rec?.items.length ?? ''}</td><td class="nowrap">${when(rec?.created_at)}</td></tr>`;
  });
  return {
    title: 'Listings',
    section: 'lists',
    rows,
    crumbs: crumbsOf(r),
    lead: "Newest first. Each listing's dashboard_url opens its page here.",
    body: html`${table(['Title', 'Template', ['Items', 'num'], 'Created'], rows, 'No listings yet. Create one with wcm lists create.')}${pager(wsHref(w, 'lists'), {}, page.next_cursor, rows.count, !!cursor)}`,
  };
}

/** `…/lists/{id}`: one listing (getListing): the page every `dashboard_url` points at. */
export async function listingView(r: WorkspaceRequest, id: string): Promise<View> {
  const rec = (await callOperation(r, 'getListing', { workspace: r.workspace.id, list: id })) as Row;
  const items = (rec.items as Array<{ title: string; description?: string }>).map(
    (i, n) =>
      html`<tr><td class="num">${n + 1}</td><td>${i.title}</td><td class="prose">${i.description ?? ''}</td></tr>`,
  );
  return {
    title: rec.title,
    section: 'lists',
    crumbs: crumbsOf(r, ['Listings', wsHref(r.workspace.id, 'lists')]),
    body: html`<section class="panel">${facts([
      ['Id', idCode(rec.id, 'listing id')],
      ['Template', rec.template_slug],
      ['Button', rec.button_id ? html`<code>${rec.button_id}</code>` : 'not attached'],
      ['Created', when(rec.created_at)],
      ['Dashboard URL', html`<code>${rec.dashboard_url}</code>`],
    ])}</section>
<h2>Items</h2>
${table([['#', 'num'], 'Title', 'Description'], items, 'This listing has no items.')}`,
  };
}

/** `…/forms`: most recently updated first (listForms). */
export async function formsView(r: WorkspaceRequest): Promise<View> {
  const w = r.workspace.id;
  const cursor = param(r.query, 'cursor');
  const page = await listPage(r, 'listForms', { workspace: w }, { cursor });
  const rows = page.rows(
    w,
    (f) =>
      html`<tr><td><a href="${wsHref(w, `forms/${seg(f.id)}`)}">${f.name}</a><span class="sub mono">${f.id}</span></td><td class="num">${f.field_count}</td><td class="nowrap">${when(f.updated_at)}</td></tr>`,
  );
  return {
    title: 'Forms',
    section: 'forms',
    rows,
    crumbs: crumbsOf(r),
    body: html`${table(['Form', ['Fields', 'num'], 'Updated'], rows, 'No forms in this workspace.')}${pager(wsHref(w, 'forms'), {}, page.next_cursor, rows.count, !!cursor)}`,
  };
}

/** `…/forms/{id}`: a form with its fields (getForm). */
export async function formView(r: WorkspaceRequest, id: string): Promise<View> {
  const f = (await callOperation(r, 'getForm', { workspace: r.workspace.id, form: id })) as Omit<
    FormRecord,
    'workspace_id'
  >;
  const fields = f.fields.map(
    (x) =>
      html`<tr><td><code>${x.id}</code></td><td>${x.label}</td><td>${x.required ? badge('required', 'info') : html`<span class="muted">optional</span>`}</td><td>${x.options?.length ? x.options.join(' · ') : html`<span class="muted">free text</span>`}</td></tr>`,
  );
  const objects = (['settings', 'design', 'integrations', 'embed'] as const).filter(
    (k) => f[k] && Object.keys(f[k]).length,
  );
  return {
    title: f.name,
    section: 'forms',
    crumbs: crumbsOf(r, ['Forms', wsHref(r.workspace.id, 'forms')]),
    lead: html`${idCode(f.id, 'form id')} · updated ${when(f.updated_at)}`,
    body: html`<h2>Fields</h2>${table(['Id', 'Label', 'Required', 'Options'], fields, 'This form has no fields.')}
${objects.map((k) => html`<h2>${k[0].toUpperCase() + k.slice(1)}</h2>${jsonBlock(f[k])}`)}`,
  };
}

/** `…/pages`: most recently updated first, all or by published state (listPages). */
export async function pagesView(r: WorkspaceRequest): Promise<View> {
  const w = r.workspace.id;
  const cursor = param(r.query, 'cursor');
  const published = param(r.query, 'published');
  const page = await listPage(r, 'listPages', { workspace: w }, { published, cursor });
  const base = wsHref(w, 'pages');
  const rows = page.rows(
    w,
    (p) =>
      html`<tr><td><a href="${wsHref(w, `pages/${seg(p.id)}`)}">${p.name}</a><span class="sub mono">${p.id}</span></td><td><code>${p.slug}</code></td><td>${p.published ? badge('published', 'ok') : badge('unpublished')}</td><td class="nowrap">${when(p.updated_at)}</td></tr>`,
  );
  return {
    title: 'Pages',
    section: 'pages',
    rows,
    crumbs: crumbsOf(r),
    body: html`<div class="toolbar">${tabs(
      base,
      'published',
      [
        [undefined, 'All'],
        ['true', 'Published'],
        ['false', 'Unpublished'],
      ],
      published,
      {},
    )}</div>
${table(['Page', 'Slug', 'State', 'Updated'], rows, 'No pages here.')}${pager(base, { published }, page.next_cursor, rows.count, !!cursor)}`,
  };
}

/** `…/pages/{id}`: what visitors see of a page, its published state, and its agent settings (getPage). */
export async function pageView(r: WorkspaceRequest, id: string): Promise<View> {
  const p = (await callOperation(r, 'getPage', { workspace: r.workspace.id, page: id })) as Omit<
    PageRecord,
    'workspace_id'
  >;
  const replies = (p.chat?.suggested_replies ?? []).map(
    (s) =>
      html`<tr><td>${String(s.label ?? '')}</td><td>${String(s.message ?? '')}</td><td>${s.featured ? badge('featured', 'info') : ''}</td></tr>`,
  );
  return {
    title: p.name,
    section: 'pages',
    crumbs: crumbsOf(r, ['Pages', wsHref(r.workspace.id, 'pages')]),
    lead: html`${p.published ? badge('published', 'ok') : badge('unpublished')} <code>/${p.slug}</code> · updated ${when(p.updated_at)}`,
    body: html`<h2>Public fields</h2>
<section class="panel">${facts([
      ['Display name', p.display_name],
      ['Bio', p.bio ? html`<span class="prose">${p.bio}</span>` : null],
      ['SEO title', p.seo_title],
      ['SEO description', p.seo_description],
      ['Answer summary', p.aeo_summary ? html`<span class="prose">${p.aeo_summary}</span>` : null],
      ['Schema type', p.schema_type],
      ['Chat greeting', p.chat?.greeting ?? null],
      ['Search indexing', yesNo(p.robots_index)],
      ['llms.txt', yesNo(p.llms_enabled)],
    ])}</section>
<h2>Suggested replies</h2>
${table(['Label', 'Message', ''], replies, 'No suggested replies.')}
<h2>Settings</h2>
<section class="panel">${facts([
      ['Id', idCode(p.id, 'page id')],
      ['Template', p.template],
      ['Agent instructions', p.agent_instructions ? html`<span class="prose">${p.agent_instructions}</span>` : null],
    ])}</section>`,
  };
}

/** `…/knowledge`: the workspace's knowledge lists by name, with their article counts (listKnowledgeLists). */
export async function knowledgeListsView(r: WorkspaceRequest): Promise<View> {
  const w = r.workspace.id;
  const cursor = param(r.query, 'cursor');
  const page = await listPage(r, 'listKnowledgeLists', { workspace: w }, { cursor });
  const rows = page.rows(
    w,
    (l) =>
      html`<tr><td><a href="${wsHref(w, `knowledge/${seg(l.id)}`)}">${l.name}</a><span class="sub mono">${l.id}</span></td><td class="num">${l.article_count}</td></tr>`,
  );
  return {
    title: 'Knowledge',
    section: 'knowledge',
    rows,
    crumbs: crumbsOf(r),
    body: html`${table(['Knowledge list', ['Articles', 'num']], rows, 'No knowledge lists in this workspace.')}${pager(wsHref(w, 'knowledge'), {}, page.next_cursor, rows.count, !!cursor)}`,
  };
}

/** The list a page's operation found in this workspace (it answered 404 otherwise). */
const knowledgeList = async (r: WorkspaceRequest, id: string) =>
  (await r.db.read((tx) => tx.get('knowledge_lists', id)))!;

const articleState = (a: Row): Html =>
  a.status === 'published' ? badge(`published v${a.published_version}`, 'ok') : badge('draft', 'warn');

/** `…/knowledge/{list}`: a list's articles (listArticles). */
export async function articlesView(r: WorkspaceRequest, listId: string): Promise<View> {
  const w = r.workspace.id;
  const cursor = param(r.query, 'cursor');
  const [page, list] = await Promise.all([
    listPage(r, 'listArticles', { workspace: w, list: listId }, { cursor }),
    knowledgeList(r, listId),
  ]);
  const rows = page.rows(
    `${w}|${listId}`,
    (a) =>
      html`<tr><td><a href="${wsHref(w, `knowledge/${seg(listId)}/articles/${seg(a.id)}`)}">${a.title}</a><span class="sub mono">${a.id}</span></td><td>${articleState(a)}</td><td class="num">${a.current_version}</td><td class="nowrap">${when(a.updated_at)}</td></tr>`,
  );
  return {
    title: list.name,
    section: 'knowledge',
    rows,
    crumbs: crumbsOf(r, ['Knowledge', wsHref(w, 'knowledge')]),
    lead: 'Articles, newest first, each with its current and published version.',
    body: html`${table(['Article', 'State', ['Current version', 'num'], 'Updated'], rows, 'This list has no articles.')}${pager(wsHref(w, `knowledge/${seg(listId)}`), {}, page.next_cursor, rows.count, !!cursor)}`,
  };
}

/** `…/knowledge/{list}/articles/{article}`: every version, which is current, which published, what was restored. */
export async function articleView(r: WorkspaceRequest, listId: string, articleId: string): Promise<View> {
  const w = r.workspace.id;
  const [a, list] = await Promise.all([
    callOperation(r, 'getArticle', { workspace: w, list: listId, article: articleId }) as Promise<Row>,
    knowledgeList(r, listId),
  ]);
  const versions = [...(a.versions as Row[])].reverse().map((v) => {
    const marks = [
      v.number === a.current_version ? badge('current', 'info') : '',
      v.number === a.published_version ? badge('published', 'ok') : v.published ? badge('was published') : '',
      v.restored_from !== null ? badge(`restored from v${v.restored_from}`, 'warn') : '',
    ];
    return html`<tr><td class="num">v${v.number}</td><td>${v.title}<details><summary>Body</summary><div class="prose">${v.body}</div></details></td><td>${marks.map((m) => html`${m} `)}</td><td class="nowrap">${when(v.created_at)}</td></tr>`;
  });
  return {
    title: a.title,
    section: 'knowledge',
    crumbs: crumbsOf(r, ['Knowledge', wsHref(w, 'knowledge')], [list.name, wsHref(w, `knowledge/${seg(listId)}`)]),
    lead: html`${articleState(a)} current version ${a.current_version} · ${idCode(a.id, 'article id')}`,
    body: html`<h2>Versions</h2>${table([['Version', 'num'], 'Title and body', 'State', 'Created'], versions, 'No versions.')}`,
  };
}
