import type { ReadTx } from '../../../store/engine/interface.js';
import { seg, wsHref } from '../chrome.js';

/**
 * The dashboard page of the record with this id in workspace `w`, whatever kind it is (`wcm open
 * ID` needs no API call to find out), or undefined when the workspace has no such record. Records
 * without a page of their own land on their list, at their row.
 */
export async function recordPage(tx: ReadTx, w: string, id: string): Promise<string | undefined> {
  const mine = (rec: { workspace_id: string } | undefined) => rec?.workspace_id === w;
  const records = tx;
  if (mine(await records.get('listings', id))) return wsHref(w, `lists/${seg(id)}`);
  if (mine(await records.get('threads', id))) return wsHref(w, `threads/${seg(id)}`);
  if (mine(await records.get('forms', id))) return wsHref(w, `forms/${seg(id)}`);
  if (mine(await records.get('pages', id))) return wsHref(w, `pages/${seg(id)}`);
  if (mine(await records.get('knowledge_lists', id))) return wsHref(w, `knowledge/${seg(id)}`);
  const article = await records.get('articles', id);
  if (article && mine(await records.get('knowledge_lists', article.list_id)))
    return wsHref(w, `knowledge/${seg(article.list_id)}/articles/${seg(id)}`);
  if (mine(await records.get('orders', id))) return `${wsHref(w, 'orders')}#order-${seg(id)}`;
  return undefined;
}
