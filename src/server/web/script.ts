/**
 * The dashboard's one script, served from /assets (the pages' CSP allows scripts from this origin
 * only, never inline). Progressive enhancement: every page reads fully without it. It shows times
 * in the viewer's time zone (the server writes UTC, which stays on hover), adds a copy button to
 * ids, and folds the side bar behind a Menu button on a narrow screen. Nothing from the page is
 * ever parsed as HTML: it reads attributes and sets textContent.
 */
export const DASHBOARD_JS = `(() => {
  const doc = document;
  doc.documentElement.classList.add('js');

  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n) => (n < 10 ? '0' : '') + n;
  const utc = (t) => t.getUTCDate() + ' ' + MONTHS[t.getUTCMonth()] + ' ' + t.getUTCFullYear() + ', ' + two(t.getUTCHours()) + ':' + two(t.getUTCMinutes()) + ' UTC';
  const full = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
  const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
  const dayMonth = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });
  const dayMonthYear = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
  const now = new Date();
  const sameDay = (a, b) => a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
  // Times: a full one (it ends in UTC) in full, a short one (a list's) as a list shows it (the
  // time today, else the day and the time); a time shown in its own zone (a booking's) stays as it is.
  for (const el of doc.querySelectorAll('time[datetime]')) {
    if (el.classList.contains('zoned')) continue;
    const t = new Date(el.getAttribute('datetime'));
    if (Number.isNaN(t.getTime())) continue;
    const isFull = / UTC$/.test(el.textContent);
    el.title = utc(t);
    el.textContent = isFull ? full.format(t) : sameDay(t, now) ? clock.format(t) : (t.getFullYear() === now.getFullYear() ? dayMonth : dayMonthYear).format(t) + ', ' + clock.format(t);
  }

  // Copy buttons for ids.
  const copy = async (text) => {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      return false;
    }
  };
  for (const el of doc.querySelectorAll('[data-copy]')) {
    const button = doc.createElement('button');
    button.type = 'button';
    button.className = 'copy';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', 'Copy ' + (el.getAttribute('data-copy-label') || 'id'));
    button.addEventListener('click', async () => {
      const ok = await copy(el.getAttribute('data-copy') || el.textContent);
      button.textContent = ok ? 'Copied' : 'Select it to copy';
      setTimeout(() => (button.textContent = 'Copy'), 1500);
    });
    el.after(button);
  }

  // The side bar behind a Menu button on a narrow screen (the stylesheet shows the button there).
  const toggle = doc.querySelector('.navtoggle');
  const side = doc.getElementById('side');
  if (toggle && side) {
    toggle.addEventListener('click', () => {
      const open = side.classList.toggle('open');
      toggle.setAttribute('aria-expanded', String(open));
    });
  }
})();
`;
