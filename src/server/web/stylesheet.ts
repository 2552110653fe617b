/**
 * The one stylesheet of the server's pages (sign-in, OAuth consent, dashboard): system fonts, no
 * web fonts or images to fetch. Kept as a module (not a .css file) so the build needs no copy step.
 */
export const WCM_CSS = `
:root {
  --bg: #f6f7f9; --panel: #fff; --ink: #1d2330; --muted: #5b6475; --line: #e2e5eb; --line-strong: #cfd4dc;
  --accent: #2f54c8; --accent-ink: #fff; --accent-soft: #eaf0ff; --ok: #1c7a43; --ok-soft: #e5f5eb;
  --warn: #8a5a00; --warn-soft: #fff4dc; --bad: #b42323; --bad-soft: #fdeaea; --radius: 8px;
  --head: #fafbfc; --hover: #fafbff; --chip: #eef0f4; --chip-ink: #3c4456; --star: #a86a00; --code-bg: #f3f4f7;
  --accent-line: #d3ddfb; --bad-line: #f3c7c7; --notice-ink: #22397f; --topbar: #151a26;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
  color-scheme: light dark;
}
/* The dark theme: the same roles in dark colours (each pair passes WCAG AA contrast). */
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f131a; --panel: #171c25; --ink: #e6e9ef; --muted: #a3acba; --line: #2a313d; --line-strong: #414a5a;
    --accent: #94b3ff; --accent-ink: #0f131a; --accent-soft: #1f2b4a; --ok: #74d79f; --ok-soft: #153222;
    --warn: #f2c463; --warn-soft: #352a0e; --bad: #ff9d9d; --bad-soft: #3b1b1b;
    --head: #1b212b; --hover: #1c2330; --chip: #262d39; --chip-ink: #d5dae3; --star: #f2c463; --code-bg: #12161d;
    --accent-line: #34477a; --bad-line: #6b2d2d; --notice-ink: #c9d7ff; --topbar: #0a0d12;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--ink); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
/* Links inside running text are underlined: colour alone does not tell them apart. */
p a, dd a, .role a, .pager a, .alert a, .notice a { text-decoration: underline; text-underline-offset: 2px; text-decoration-thickness: 1px; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
h1 { font-size: 1.45rem; line-height: 1.25; margin: 0 0 .25rem; font-weight: 650; letter-spacing: -.01em; }
h2 { font-size: 1.05rem; margin: 1.75rem 0 .6rem; font-weight: 650; }
h3 { font-size: .95rem; margin: 1.25rem 0 .4rem; }
p { margin: .4rem 0 .9rem; }
code, .mono { font-family: var(--mono); font-size: .86em; }
.muted { color: var(--muted); }
.small { font-size: .86rem; }

.topbar { display: flex; align-items: center; justify-content: space-between; gap: 1rem; height: 52px; padding: 0 1.25rem; background: var(--topbar); color: #e8ebf2; }
.topbar a { color: #fff; }
.brand { display: inline-flex; align-items: center; gap: .55rem; font-weight: 650; letter-spacing: .01em; }
.brand .mark { display: inline-grid; place-items: center; width: 26px; height: 26px; border-radius: 6px; background: var(--accent); color: var(--accent-ink); font-size: .9rem; }
.who { display: flex; align-items: center; gap: .9rem; font-size: .9rem; }
.who .user { color: #c9cfdb; }
form.inline { display: inline; margin: 0; }
button.link { background: none; border: 0; padding: 0; color: #fff; font: inherit; cursor: pointer; text-decoration: underline; text-underline-offset: 3px; }

.frame { display: grid; grid-template-columns: 230px minmax(0, 1fr); min-height: calc(100vh - 52px); }
.frame.single { grid-template-columns: minmax(0, 1fr); }
.side { border-right: 1px solid var(--line); background: var(--panel); padding: 1rem .75rem; }
.side .ws { padding: .2rem .6rem .7rem; font-weight: 650; border-bottom: 1px solid var(--line); margin-bottom: .6rem; overflow-wrap: anywhere; }
.side .ws a { color: var(--ink); }
.side .ws .role { display: block; font-weight: 400; font-size: .8rem; color: var(--muted); }
.side ul { list-style: none; margin: 0; padding: 0; }
.side li a { display: flex; justify-content: space-between; padding: .38rem .6rem; border-radius: 6px; color: var(--ink); }
.side li a:hover { background: var(--bg); text-decoration: none; }
.side li a[aria-current="page"] { background: var(--accent-soft); color: var(--accent); font-weight: 600; }
.side .count { color: var(--muted); font-size: .82rem; font-variant-numeric: tabular-nums; }
main { padding: 1.6rem 2rem 3rem; max-width: 1180px; width: 100%; }
.frame.single main { margin: 0 auto; max-width: 760px; }

.crumbs { font-size: .86rem; color: var(--muted); margin-bottom: .5rem; overflow-wrap: anywhere; }
.crumbs a { color: var(--muted); }
.crumbs a:hover { color: var(--accent); }
.crumbs span[aria-hidden] { margin: 0 .35rem; }
.pagehead { display: flex; align-items: flex-start; justify-content: space-between; gap: 1rem; margin-bottom: 1.1rem; }
.pagehead p { margin: .2rem 0 0; }

.panel { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: 1.1rem 1.25rem; margin-bottom: 1rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: .75rem; margin: 1rem 0 1.5rem; }
.card { display: block; background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: .9rem 1rem; color: var(--ink); }
a.card:hover { border-color: var(--accent); text-decoration: none; box-shadow: 0 1px 3px rgba(20, 30, 60, .08); }
.card .num { display: block; font-size: 1.6rem; font-weight: 650; font-variant-numeric: tabular-nums; line-height: 1.2; }
.card .label { color: var(--muted); font-size: .88rem; }

.tablewrap { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); overflow-x: auto; }
table { width: 100%; border-collapse: collapse; font-size: .92rem; }
th, td { text-align: left; padding: .6rem .85rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .76rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); font-weight: 600; background: var(--head); white-space: nowrap; }
tbody tr:last-child td { border-bottom: 0; }
tbody tr:hover td { background: var(--hover); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; width: 1%; white-space: nowrap; }
td.nowrap { white-space: nowrap; }
td .sub { display: block; color: var(--muted); font-size: .84rem; overflow-wrap: break-word; }
td small { display: block; color: var(--muted); font-size: .84rem; overflow-wrap: break-word; }
tr.unread td { font-weight: 600; }
tr.unread td .sub, tr.unread td small { font-weight: 400; }
/* The inbox's cells carry no classes of their own (its page is the one that must stay small). */
table.inbox td:nth-child(4), table.inbox td:nth-child(6) { white-space: nowrap; }
table.inbox td:nth-child(5) { text-align: right; font-variant-numeric: tabular-nums; width: 1%; }
table.inbox td:nth-child(3) { color: var(--muted); font-size: .88rem; }
.empty { padding: 2rem 1rem; text-align: center; color: var(--muted); }

.badge { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .78rem; font-weight: 600; background: var(--chip); color: var(--chip-ink); white-space: nowrap; }
.badge.ok { background: var(--ok-soft); color: var(--ok); }
.badge.warn { background: var(--warn-soft); color: var(--warn); }
.badge.bad { background: var(--bad-soft); color: var(--bad); }
.badge.info { background: var(--accent-soft); color: var(--accent); }
.star { color: var(--star); }

.toolbar { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: .75rem; margin-bottom: .9rem; }
.tabs { display: flex; gap: .25rem; flex-wrap: wrap; }
.tabs a { padding: .35rem .8rem; border-radius: 999px; color: var(--ink); border: 1px solid var(--line); background: var(--panel); font-size: .9rem; }
.tabs a:hover { text-decoration: none; border-color: var(--line-strong); }
.tabs a[aria-current="page"] { background: var(--ink); border-color: var(--ink); color: var(--panel); }
form.filters { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; margin: 0; }
input:not([type]), input[type="text"], input[type="search"], input[type="password"], select { font: inherit; padding: .42rem .65rem; border: 1px solid var(--line-strong); border-radius: 6px; background: var(--panel); color: var(--ink); min-width: 0; max-width: 100%; }
input[type="search"] { width: 16rem; }
button, .button { font: inherit; display: inline-block; padding: .45rem .95rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-ink); cursor: pointer; font-weight: 550; }
button.secondary, .button.secondary { background: var(--panel); color: var(--ink); border-color: var(--line-strong); }
button:hover, .button:hover { filter: brightness(1.06); text-decoration: none; }

.pager { display: flex; flex-wrap: wrap; gap: .5rem; justify-content: space-between; align-items: center; margin-top: .8rem; font-size: .9rem; color: var(--muted); }

dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .45rem 1.25rem; margin: 0; }
dl.facts dt { color: var(--muted); font-size: .9rem; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.prose { white-space: pre-wrap; overflow-wrap: anywhere; }

.split { display: grid; grid-template-columns: minmax(0, 1fr) 300px; gap: 1.5rem; align-items: start; }
.split > aside .panel { position: sticky; top: 1rem; }
.split dl.facts { grid-template-columns: 1fr; gap: .1rem; }
.split dl.facts dd { margin-bottom: .55rem; }
.conversation { display: flex; flex-direction: column; gap: .85rem; max-width: 760px; }
.msg { max-width: 82%; }
.msg .bubble { padding: .7rem .95rem; border-radius: 12px; background: var(--panel); border: 1px solid var(--line); white-space: pre-wrap; overflow-wrap: anywhere; }
.msg .meta { font-size: .8rem; color: var(--muted); margin: 0 .3rem .25rem; }
.msg.outbound { align-self: flex-end; }
.msg.outbound .bubble { background: var(--accent-soft); border-color: var(--accent-line); }
.msg.outbound .meta { text-align: right; }

.signin { max-width: 460px; margin: 3rem auto; }
.signin h1 { margin-bottom: .4rem; }
.accounts { list-style: none; margin: 1rem 0 0; padding: 0; display: grid; gap: .5rem; }
.accounts button { width: 100%; text-align: left; background: var(--panel); color: var(--ink); border: 1px solid var(--line); padding: .7rem .9rem; border-radius: var(--radius); display: flex; gap: .8rem; align-items: center; font-weight: 400; }
.accounts button:hover { border-color: var(--accent); filter: none; }
.accounts .avatar { flex: none; display: inline-grid; place-items: center; width: 34px; height: 34px; border-radius: 50%; background: var(--accent-soft); color: var(--accent); font-weight: 650; }
.accounts .name { display: block; font-weight: 600; }
.accounts .email { display: block; color: var(--muted); font-size: .86rem; }
label { display: block; font-weight: 600; margin: .8rem 0 .3rem; }
.field input { width: 100%; }
.hint { color: var(--muted); font-size: .86rem; margin-top: .35rem; }
.alert { border-radius: var(--radius); padding: .7rem .95rem; margin: .8rem 0; background: var(--bad-soft); color: var(--bad); border: 1px solid var(--bad-line); }
.notice { border-radius: var(--radius); padding: .7rem .95rem; margin: .8rem 0; background: var(--accent-soft); color: var(--notice-ink); border: 1px solid var(--accent-line); }

.visually-hidden { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
pre { margin: 0; background: var(--code-bg); color: var(--ink); border: 1px solid var(--line); border-radius: 6px; padding: .7rem .9rem; font-size: .84rem; overflow-x: auto; }
details summary { cursor: pointer; color: var(--accent); }
details[open] summary { margin-bottom: .4rem; }
.log td { font-family: var(--mono); font-size: .82rem; }
td.path .sub { font-family: var(--mono); font-size: .8rem; overflow-wrap: anywhere; }
form.filters label { display: inline-flex; gap: .4rem; align-items: center; margin: 0; font-weight: 500; }
code.wrap { overflow-wrap: anywhere; }
/* A copy button beside an id (added by the dashboard's script). */
button.copy { margin-left: .5rem; padding: .05rem .5rem; font-size: .78rem; font-weight: 500; background: var(--panel); color: var(--ink); border-color: var(--line-strong); vertical-align: baseline; }
.related h3 { margin: .9rem 0 .3rem; font-size: .85rem; color: var(--muted); font-weight: 600; }
.related h2 + h3 { margin-top: 0; }
.related ul { list-style: none; margin: 0; padding: 0; display: grid; gap: .3rem; }
.related li { overflow-wrap: anywhere; }
.related .sub { display: block; color: var(--muted); font-size: .82rem; }
/* The Menu button shows only on a narrow screen, and only with the script (without it the side bar is always open). */
.navtoggle { display: none; background: transparent; border: 1px solid #5a6478; color: #fff; padding: .3rem .7rem; font-size: .9rem; font-weight: 500; }
@media (max-width: 760px) {
  .frame { grid-template-columns: minmax(0, 1fr); }
  .side { border-right: 0; border-bottom: 1px solid var(--line); }
  html.js .navtoggle { display: inline-block; }
  html.js .side { display: none; }
  html.js .side.open { display: block; }
  .topbar { padding: 0 .75rem; gap: .6rem; }
  .topbar .brand { margin-right: auto; }
  .who { gap: .6rem; min-width: 0; }
  .who .user { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 9rem; }
  main { padding: 1.1rem 1rem 2rem; }
  .pagehead { flex-wrap: wrap; }
  .msg { max-width: 100%; }
  .split { grid-template-columns: minmax(0, 1fr); }
  input[type="search"] { width: 100%; }
  form.filters { width: 100%; }
  form.filters input[type="search"] { flex: 1 1 12rem; }
  .cards { grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); }
  /* The inbox as stacked rows: who and when on one line, the conversation under it. */
  table.inbox thead { display: none; }
  table.inbox, table.inbox tbody, table.inbox tr { display: block; }
  table.inbox tr { display: grid; grid-template-columns: minmax(0, 1fr) auto auto; gap: .1rem .6rem; padding: .65rem .85rem; border-bottom: 1px solid var(--line); }
  table.inbox tbody tr:last-child { border-bottom: 0; }
  table.inbox td { display: block; padding: 0; border: 0; }
  table.inbox td:nth-child(1) { grid-column: 1; grid-row: 1; }
  table.inbox td:nth-child(6) { grid-column: 2 / -1; grid-row: 1; text-align: right; }
  table.inbox td:nth-child(2) { grid-column: 1 / -1; grid-row: 2; }
  table.inbox td:nth-child(3) { grid-column: 1; grid-row: 3; }
  table.inbox td:nth-child(4) { grid-column: 2; grid-row: 3; }
  table.inbox td:nth-child(5) { grid-column: 3; grid-row: 3; width: auto; color: var(--muted); }
  table.inbox td:nth-child(5)::before { content: "\\2709\\FE0E  "; }
  /* The request log as stacked rows too: time, status and duration; the call; the problem and request id. */
  #request-log thead { display: none; }
  #request-log, #request-log tbody { display: block; }
  #request-log tr { display: grid; grid-template-columns: auto auto minmax(0, 1fr) auto; gap: .15rem .6rem; align-items: baseline; padding: .6rem .85rem; border-bottom: 1px solid var(--line); }
  #request-log td { display: block; padding: 0; border: 0; }
  #request-log td:nth-child(1) { grid-row: 1; grid-column: 1; }
  #request-log td:nth-child(2) { grid-row: 1; grid-column: 2; }
  #request-log td:nth-child(5) { grid-row: 1; grid-column: 4; width: auto; }
  #request-log td:nth-child(5)::after { content: " ms"; }
  #request-log td:nth-child(3) { grid-row: 2; grid-column: 1; }
  #request-log td:nth-child(4) { grid-row: 2; grid-column: 2 / -1; }
  #request-log td:nth-child(6) { grid-row: 3; grid-column: 1 / 3; }
  #request-log td:nth-child(7) { grid-row: 3; grid-column: 3 / -1; overflow-wrap: anywhere; }
  /* Voice interactions as stacked rows, as the inbox: when and status; who, kind and length; the transcript. */
  table.voice thead { display: none; }
  table.voice, table.voice tbody { display: block; }
  table.voice tr { display: grid; grid-template-columns: minmax(0, 1fr) auto auto; gap: .15rem .6rem; align-items: baseline; padding: .65rem .85rem; border-bottom: 1px solid var(--line); }
  table.voice tbody tr:last-child { border-bottom: 0; }
  table.voice td { display: block; padding: 0; border: 0; white-space: normal; overflow-wrap: anywhere; }
  table.voice td:nth-child(1) { grid-row: 1; grid-column: 1 / 3; }
  table.voice td:nth-child(4) { grid-row: 1; grid-column: 3; text-align: right; }
  /* Who on a line of its own, so a phone number is never cut (at 375 px it did: +447700900 | 113). */
  table.voice td:nth-child(3) { grid-row: 2; grid-column: 1 / -1; overflow-wrap: normal; }
  table.voice td:nth-child(2) { grid-row: 3; grid-column: 1 / 3; color: var(--muted); }
  table.voice td:nth-child(5) { grid-row: 3; grid-column: 3; width: auto; color: var(--muted); }
  table.voice td:nth-child(6) { grid-row: 4; grid-column: 1 / -1; }
  table.inbox td small { display: inline; margin-left: .4rem; }
  table.inbox td:nth-child(2) small { display: block; margin-left: 0; }
}
`;
