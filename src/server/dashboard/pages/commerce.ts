import { html } from '../../web/html.js';
import { badge, pager, table, when, wsHref, type View } from '../chrome.js';
import { pageWorkspaceIndex, recordsById } from '../data.js';
import { param, type WorkspaceRequest } from '../request.js';

const moneyFormats = new Map<string, Intl.NumberFormat | null>();
/** An amount in minor units (cents) as money in its currency: `USD 25.00` → `$25.00`. */
export function money(minor: number, currency: string): string {
  const code = currency.toUpperCase();
  if (!moneyFormats.has(code)) {
    try {
      moneyFormats.set(code, new Intl.NumberFormat('en-US', { style: 'currency', currency: code }));
    } catch {
      moneyFormats.set(code, null);
    }
  }
  const f = moneyFormats.get(code);
  if (!f) return `${minor} ${code} (minor units)`;
  return f.format(minor / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2));
}

const STATE_TONES: Record<string, 'ok' | 'warn' | 'bad' | 'info'> = {
  paid: 'ok',
  pending: 'warn',
  failed: 'bad',
  canceled: 'bad',
  refunded: 'info',
};

/** `…/orders`: newest first, with payment state (no list operation yet: the orders index, this workspace's only). */
export async function ordersView(r: WorkspaceRequest): Promise<View> {
  const w = r.workspace.id;
  const cursor = param(r.query, 'cursor');
  const { page, offers } = await r.db.read(async (tx) => {
    const page = await pageWorkspaceIndex(tx, 'ordersByWorkspace', w, cursor);
    const offers = await recordsById(
      tx,
      'offers',
      page.items.map((o) => o.offer_id),
    );
    return { page, offers };
  });
  const rows = page.items.map((o) => {
    const offer = offers.get(o.offer_id);
    return html`<tr id="order-${o.id}"><td class="nowrap">${when(o.created_at)}<span class="sub mono" data-copy="${o.id}" data-copy-label="order id">${o.id}</span></td><td>${o.customer_name ?? html`<span class="muted">&mdash;</span>`}${o.customer_email ? html`<span class="sub">${o.customer_email}</span>` : ''}</td><td>${offer?.title ?? o.offer_id}${o.customer_message ? html`<span class="sub">&ldquo;${o.customer_message}&rdquo;</span>` : ''}</td><td class="num">${o.quantity}</td><td class="num">${money(o.amount_total, o.currency)}<span class="sub">fee ${money(o.application_fee_amount, o.currency)}</span></td><td>${badge(o.payment_state, STATE_TONES[o.payment_state] ?? '')}<span class="sub">${o.provider} · <span class="mono">${o.payment_intent_id}</span></span></td></tr>`;
  });
  return {
    title: 'Orders',
    section: 'orders',
    crumbs: [[r.workspace.name, wsHref(w)]],
    lead: "Newest first. Payment state follows the processor's notifications.",
    body: html`${table(['Created', 'Customer', 'Offer', ['Qty', 'num'], ['Total', 'num'], 'Payment'], rows, 'No orders yet.')}${pager(wsHref(w, 'orders'), {}, page.next_cursor, rows.length, !!cursor)}`,
  };
}

/** `…/events`: analytics events, newest first (the events index, this workspace's only). */
export async function eventsView(r: WorkspaceRequest): Promise<View> {
  const w = r.workspace.id;
  const cursor = param(r.query, 'cursor');
  const { page, agents } = await r.db.read(async (tx) => {
    const page = await pageWorkspaceIndex(tx, 'eventsByWorkspace', w, cursor);
    const agents = await recordsById(
      tx,
      'agents',
      page.items.map((e) => e.agent_id),
    );
    return { page, agents };
  });
  const rows = page.items.map(
    (e) =>
      html`<tr><td class="nowrap">${when(e.occurred_at)}</td><td><code>${e.type}</code></td><td>${agents.get(e.agent_id)?.name ?? e.agent_id}</td><td>${e.button_id ? html`<code>${e.button_id}</code>` : html`<span class="muted">&mdash;</span>`}</td><td>${e.app_id ? html`<code>${e.app_id}</code>` : html`<span class="muted">&mdash;</span>`}</td></tr>`,
  );
  return {
    title: 'Analytics events',
    section: 'events',
    crumbs: [[r.workspace.name, wsHref(w)]],
    lead: 'What public agent pages recorded. No visitor data is kept: only the agent, button, app and time.',
    body: html`${table(['Occurred', 'Type', 'Agent', 'Button', 'App'], rows, 'No events recorded yet.')}${pager(wsHref(w, 'events'), {}, page.next_cursor, rows.length, !!cursor)}`,
  };
}
