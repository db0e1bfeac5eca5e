// The convoy UI in the browser: Preact components written with htm tagged templates, loaded as ES modules
// (no build step). The server derives everything shown (rows, progress, the object tree) with the same
// functions as the CLI; this file only lays it out, follows the server-sent events and sends actions.
import htm from 'htm';
import { h, render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';

const html = htm.bind(h);
/** Where the app is served: '' for `convoy ui`, the aggregated API's path in a cluster (docs/ui.md). */
const ROOT = document.documentElement.dataset.root ?? '';

// --- data -----------------------------------------------------------------------------------------

const store = {
  rows: new Map(),
  problems: [],
  scope: undefined,
  detail: undefined,
  /** Whether convoy's processes run (src/ui/liveness.ts), sent on every event stream. */
  liveness: { kind: 'unknown' },
  fleetVersion: 0,
  listeners: new Set(),
  emit() {
    for (const l of this.listeners) l();
  },
};

function useStore() {
  const [, setTick] = useState(0);
  useEffect(() => {
    const l = () => setTick((t) => t + 1);
    store.listeners.add(l);
    return () => store.listeners.delete(l);
  }, []);
  return store;
}

async function getJson(path) {
  const res = await fetch(ROOT + path, { headers: { accept: 'application/json' } });
  const body = await res.json();
  if (!res.ok) throw Object.assign(new Error(body.error ?? `${res.status}`), { status: res.status, body });
  return body;
}

let events;
/** One event stream per page; it carries the rows that changed and, on a Release page, that Release. */
function follow(releaseKey) {
  events?.close();
  events = new EventSource(
    `${ROOT}/api/events${releaseKey === undefined ? '' : `?release=${encodeURIComponent(releaseKey)}`}`,
  );
  events.addEventListener('rows', (e) => {
    const { rows, removed } = JSON.parse(e.data);
    for (const r of rows) store.rows.set(r.key, r);
    for (const k of removed) store.rows.delete(k);
    store.emit();
  });
  events.addEventListener('detail', (e) => {
    store.detail = JSON.parse(e.data) ?? undefined;
    store.emit();
  });
  events.addEventListener('problems', (e) => {
    store.problems = JSON.parse(e.data);
    store.emit();
  });
  events.addEventListener('liveness', (e) => {
    store.liveness = JSON.parse(e.data);
    store.emit();
  });
  events.addEventListener('fleet', () => {
    store.fleetVersion++;
    store.emit();
  });
}

async function loadRows() {
  const body = await getJson('/api/releases');
  store.rows = new Map(body.rows.map((r) => [r.key, r]));
  store.problems = body.problems;
  store.scope = body.scope;
  store.emit();
}

// --- routing --------------------------------------------------------------------------------------

function parseRoute(full) {
  const path = full.startsWith(ROOT) ? full.slice(ROOT.length) || '/' : full;
  const m = /^\/releases\/([^/]+)\/([^/]+)\/?$/.exec(path);
  if (m) return { page: 'release', namespace: decodeURIComponent(m[1]), name: decodeURIComponent(m[2]) };
  if (path === '/clusters') return { page: 'clusters' };
  if (path === '/releasesets') return { page: 'releasesets' };
  return { page: 'releases' };
}

function useRoute() {
  const [route, setRoute] = useState(() => parseRoute(location.pathname));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.pathname));
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  return route;
}

function go(e) {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = e.target.closest('a');
  if (a === null || a.origin !== location.origin || a.target || a.getAttribute('href').startsWith('#'))
    return;
  e.preventDefault();
  history.pushState(null, '', a.pathname + a.search);
  dispatchEvent(new PopStateEvent('popstate'));
}

// --- small pieces ---------------------------------------------------------------------------------

const GOOD = new Set(['done', 'True', 'Succeeded', 'Synced', 'Healthy', 'InSync', 'Passed', 'Successful']);
const BAD = new Set(['False', 'Failed', 'RolledBack', 'Degraded', 'Drifted', 'Error']);
const WAIT = new Set([
  'waiting',
  'Progressing',
  'Pending',
  'Running',
  'Suspended',
  'Unknown',
  'AwaitingApproval',
]);

function tone(word) {
  if (GOOD.has(word)) return 's-ok';
  if (BAD.has(word)) return 's-bad';
  if (WAIT.has(word)) return 's-info';
  if (word === '-' || word === '' || word === undefined || word === 'Normal' || word === 'Superseded')
    return 's-none';
  return 's-warn';
}

const Badge = ({ word, title }) =>
  html`<span class="badge ${tone(word)}" title=${title}>${word || '-'}</span>`;
/** releaseState's tone (src/server/release-state.ts) as a badge class. */
const TONE = { ok: 's-ok', bad: 's-bad', busy: 's-info', calm: 's-calm' };
/** A Release's one state (the word `convoy get` prints), its reason beside it when there is one. */
const StateBadge = ({ r }) =>
  html`<span class="state"><span class="badge ${TONE[r.tone] ?? 's-none'}" title=${r.reason}>${r.state}</span>${
    r.pinned ? html` <span class="badge s-warn">pinned</span>` : null
  }</span>`;
/** The Healthy condition in one word; "not assessed" without a healthAssessment, never a bare True. */
const HealthBadge = ({ r }) =>
  r.health === 'NotAssessed'
    ? html`<span class="badge s-none" title="no healthAssessment: convoy does not judge the objects">not assessed</span>`
    : html`<${Badge} word=${r.health} />`;
const short = (ref) => (ref === undefined ? '-' : ref.replace(/^sha256:/, '').slice(0, 12));

// --- time: one format everywhere, relative in the text and absolute on hover ----------------------

const pad = (n) => String(n).padStart(2, '0');
/** "12:03:10": a time of day, the local clock, 24 h. */
const clock = (t) => {
  const d = new Date(t);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};
/** "2030-01-01 12:03:10": the one absolute format (local time). */
const absolute = (t) => {
  const d = new Date(t);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock(t)}`;
};
/** "42 s", "3 min", "2 h", "5 d": a span in the unit a reader wants. */
const span = (ms) => {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
};
/** "3 min ago" or "in 42 s". */
const relative = (t, now = Date.now()) => {
  const ms = Date.parse(t) - now;
  return ms > 0 ? `in ${span(ms)}` : `${span(ms)} ago`;
};
const valid = (t) => typeof t === 'string' && t !== '' && !Number.isNaN(Date.parse(t));
/** A time as text relative to now, its absolute time on hover and for assistive technology. */
const When = ({ t }) =>
  valid(t) ? html`<time datetime=${t} title=${absolute(t)}>${relative(t)}</time>` : '-';

/** A filter of the Releases page: one of `options`, or all of them (''). */
const Choice = ({ label, value, options, onChange }) => html`<label>${label}
    <select value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
      <option value="">all</option>
      ${options.map((n) => html`<option value=${n}>${n}</option>`)}
    </select>
  </label>`;

/** A banner for each convoy process that has no live shard Lease: the pages would look live otherwise. */
function Liveness({ liveness }) {
  if (liveness.kind === 'unreadable')
    return html`<div class="banner warn" role="status" data-testid="liveness-unknown">
      Cannot tell whether convoy's controller-manager and observer run: ${liveness.message}</div>`;
  if (liveness.kind !== 'known' || liveness.down.length === 0) return null;
  return html`<div class="banner error" role="alert">${liveness.down.map(
    (d) =>
      html`<p data-testid=${`down-${d.process}`}><strong>${d.process} not running${
        d.since
          ? html` since <time datetime=${d.since} title=${absolute(d.since)}>${clock(d.since)}</time>`
          : ''
      }</strong>: ${d.consequence}. <span class="muted">(no live Lease ${d.leases})</span></p>`,
  )}</div>`;
}

/** A link to one of convoy's docs, served by this UI as text (src/ui/app.ts) in a new tab. */
const DocLink = ({ page, children }) =>
  html`<a href=${`${ROOT}/docs/${page}`} target="_blank" rel="noopener">${children}</a>`;

function Problems({ problems }) {
  if (problems.length === 0) return null;
  return html`<div class="banner error" role="alert">
    ${problems.map((p) => html`<p>Cannot watch ${p.kind}s (since <${When} t=${p.since} />): ${p.message}</p>`)}
  </div>`;
}

// --- Releases -------------------------------------------------------------------------------------

/** The states in the order a reader wants them counted: what needs attention first. */
const STATE_ORDER = [
  'Failed',
  'RolledBack',
  'Degraded',
  'Progressing',
  'AwaitingApproval',
  'Waiting',
  'Pending',
  'Suspended',
  'Deleting',
  'Ready',
];

/** The sortable columns of the list: each a key of a row to compare by. */
const SORTS = {
  namespace: (r) => r.namespace,
  name: (r) => r.key,
  state: (r) => String(STATE_ORDER.indexOf(r.state)).padStart(2, '0'),
  health: (r) => r.health,
  revision: (r) => r.revision,
  age: (r) => r.createdAt,
  changed: (r) => r.changedAt,
};

/**
 * Rows on one page of the list: the page's DOM (and so its first render) stays this size at 10,000
 * Releases; filters, search and sort still run over every row, in the browser, before the page is cut.
 */
const PAGE_SIZE = 200;

/** One compare for every sort: the same order as localeCompare, without building a collator per call. */
const collate = new Intl.Collator().compare;

/** The list's filters, order and page, kept in the address (?ns=&state=&q=&sort=&dir=&page=) so Back restores them. */
function readListQuery() {
  const q = new URLSearchParams(location.search);
  const sort = q.get('sort') ?? 'name';
  const page = Number.parseInt(q.get('page') ?? '1', 10);
  return {
    ns: q.get('ns') ?? '',
    state: q.get('state') ?? '',
    q: q.get('q') ?? '',
    sort: sort in SORTS ? sort : 'name',
    dir: q.get('dir') === 'desc' ? 'desc' : 'asc',
    page: Number.isSafeInteger(page) && page > 1 ? String(page) : '1',
  };
}

function useListQuery() {
  const [query, setQuery] = useState(readListQuery);
  useEffect(() => {
    const on = () => setQuery(readListQuery());
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  const update = (change) => {
    // A new filter, search or order starts at the first page; only the pager moves between pages.
    const next = { ...query, page: '1', ...change };
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) {
      const dflt = k === 'sort' ? 'name' : k === 'dir' ? 'asc' : k === 'page' ? '1' : '';
      if (v !== dflt) params.set(k, v);
    }
    const search = params.toString();
    // Replaced, not pushed: typing a search is not a page to go Back to; leaving the list is.
    history.replaceState(null, '', `${location.pathname}${search === '' ? '' : `?${search}`}`);
    setQuery(next);
  };
  return [query, update];
}

function SortHeader({ id, label, query, update, className }) {
  const active = query.sort === id;
  const dir = active && query.dir === 'asc' ? 'desc' : 'asc';
  return html`<th scope="col" class=${className} aria-sort=${active ? (query.dir === 'asc' ? 'ascending' : 'descending') : undefined}>
    <button type="button" class="sort" data-sort=${id} onClick=${() => update({ sort: id, dir: active ? dir : 'asc' })}>
      ${label}<span aria-hidden="true">${active ? (query.dir === 'asc' ? ' ▲' : ' ▼') : ''}</span>
    </button></th>`;
}

function ReleasesPage() {
  const s = useStore();
  const [query, update] = useListQuery();
  useEffect(() => {
    follow(undefined);
    loadRows().catch((err) => {
      store.problems = [{ kind: 'Release', message: err.message, since: new Date().toISOString() }];
      store.emit();
    });
  }, []);
  const rows = [...s.rows.values()];
  const namespaces = useMemo(() => [...new Set(rows.map((r) => r.namespace))].sort(), [rows.length]);
  const counts = new Map();
  for (const r of rows) counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
  const needle = query.q.trim().toLowerCase();
  const by = SORTS[query.sort];
  const sign = query.dir === 'desc' ? -1 : 1;
  const shown = rows
    .filter(
      (r) =>
        (query.ns === '' || r.namespace === query.ns) &&
        (query.state === '' || r.state === query.state) &&
        (needle === '' ||
          r.key.toLowerCase().includes(needle) ||
          r.message.toLowerCase().includes(needle) ||
          r.revision.toLowerCase().includes(needle)),
    )
    .sort((a, b) => sign * (collate(by(a), by(b)) || collate(a.key, b.key)));
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  const page = Math.min(Number(query.page), pages);
  const first = (page - 1) * PAGE_SIZE;
  const onPage = shown.slice(first, first + PAGE_SIZE);
  const header = (id, label, className) =>
    html`<${SortHeader} id=${id} label=${label} query=${query} update=${update} className=${className} />`;
  return html`<h1>Releases</h1>
    <${Problems} problems=${s.problems.filter((p) => p.kind === 'Release' || p.kind === 'ReleaseInventory')} />
    <div class="counts" role="group" aria-label="Releases per state">
      ${STATE_ORDER.filter((st) => counts.has(st)).map(
        (
          st,
        ) => html`<button type="button" class="chip" data-state=${st} aria-pressed=${query.state === st ? 'true' : 'false'}
          onClick=${() => update({ state: query.state === st ? '' : st })}>${st} <strong>${counts.get(st)}</strong></button>`,
      )}
    </div>
    <form class="filters" role="search" onSubmit=${(e) => e.preventDefault()}>
      <${Choice} label="Namespace" value=${query.ns} options=${namespaces} onChange=${(ns) => update({ ns })} />
      <${Choice} label="State" value=${query.state} options=${STATE_ORDER} onChange=${(state) => update({ state })} />
      <label>Search
        <input type="search" value=${query.q} placeholder="name, revision, message"
          onInput=${(e) => update({ q: e.currentTarget.value })} />
      </label>
      <span class="count" role="status" aria-live="polite">${shown.length} of ${rows.length} Releases</span>
    </form>
    ${
      rows.length === 0 && s.scope !== undefined
        ? html`<p class="empty" data-testid="empty">No Releases${s.scope?.kind === 'namespace' ? ` in namespace ${s.scope.namespace}` : ''} yet.${' '}
            <${DocLink} page="getting-started.md">Getting started</${DocLink}> shows how to create one.</p>`
        : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Releases">
      <table class="releases">
        <caption class="visually-hidden">Releases with their state, health, rollout and revision; the column headers sort</caption>
        <thead><tr>
          ${header('namespace', 'Namespace')}${header('name', 'Name')}${header('state', 'State')}
          ${header('health', 'Health')}<th scope="col">Waves</th><th scope="col">Objects</th>
          ${header('revision', 'Revision')}${header('age', 'Age')}${header('changed', 'Last change')}
          <th scope="col">Message</th>
        </tr></thead>
        <tbody>
          ${onPage.map((r) => html`<${ReleaseRow} key=${r.key} r=${r} />`)}
        </tbody>
      </table>
    </div>
    <${Pager} page=${page} pages=${pages} first=${first} rows=${onPage.length} of=${shown.length} update=${update} />`
    }`;
}

/** Which rows this page shows, and the way to the others (only when there are more than one page). */
function Pager({ page, pages, first, rows, of, update }) {
  if (pages <= 1) return null;
  const go = (p) => update({ page: String(p) });
  return html`<nav class="pager" aria-label="Pages of Releases">
    <button type="button" disabled=${page <= 1} onClick=${() => go(page - 1)}>Previous page</button>
    <span data-testid="page">Releases ${first + 1}–${first + rows} of ${of} (page ${page} of ${pages})</span>
    <button type="button" disabled=${page >= pages} onClick=${() => go(page + 1)}>Next page</button>
  </nav>`;
}

function ReleaseRow({ r }) {
  return html`<tr data-release=${r.key}>
    <td data-label="Namespace">${r.namespace}</td>
    <td data-label="Name"><a href=${`${ROOT}/releases/${encodeURIComponent(r.namespace)}/${encodeURIComponent(r.name)}`}>${r.name}</a></td>
    <td data-label="State" data-col="state"><${StateBadge} r=${r} /></td>
    <td data-label="Health" data-col="health"><${HealthBadge} r=${r} /></td>
    <td data-label="Waves">${r.health === 'NotAssessed' ? r.waves.total : `${r.waves.done}/${r.waves.total}`}</td>
    <td data-label="Objects">${r.health === 'NotAssessed' ? r.objects.total : `${r.objects.healthy}/${r.objects.total}`}</td>
    <td data-label="Revision" class="mono">${r.revision}</td>
    <td data-label="Age" data-col="age"><${When} t=${r.createdAt} /></td>
    <td data-label="Last change" data-col="changed"><${When} t=${r.changedAt} /></td>
    <td data-label="Message" class="msg">${r.message}</td>
  </tr>`;
}

// --- Release --------------------------------------------------------------------------------------

function ReleasePage({ namespace, name }) {
  const s = useStore();
  const key = `${namespace}/${name}`;
  const [error, setError] = useState(undefined);
  const [history, setHistory] = useState(undefined);
  const [outcome, setOutcome] = useState(undefined);
  const [confirm, setConfirm] = useState(undefined);
  const [perms, setPerms] = useState(undefined);
  const base = `/api/releases/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
  const loadHistory = () =>
    getJson(`${base}/history`).then(setHistory, (err) => setHistory({ error: err.message }));
  useEffect(() => {
    store.detail = undefined;
    follow(key);
    getJson(base).then(
      (d) => {
        store.detail = d;
        store.emit();
      },
      (err) => setError(err.message),
    );
    loadHistory();
    // The permission pre-check: which actions this user may take here, asked before any is offered.
    setPerms(undefined);
    getJson(`${base}/permissions`).then(setPerms, (err) => setPerms({ error: err.message }));
  }, [key]);
  const d = s.detail?.row.key === key ? s.detail : undefined;
  const historyLength = d?.timeline.filter((t) => t.kind === 'render').length;
  useEffect(() => {
    if (historyLength !== undefined) loadHistory();
  }, [historyLength]);
  if (error !== undefined) return html`<h1>${key}</h1><div class="banner error" role="alert">${error}</div>`;
  if (d === undefined) return html`<h1>${key}</h1><p class="loading">Loading…</p>`;

  const ask = (c) => {
    setOutcome(undefined);
    setConfirm(c);
  };
  const run = async (action) => {
    setConfirm(undefined);
    setOutcome({ kind: 'running', action });
    const res = await fetch(`${ROOT}${base}/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-convoy-ui': '1' },
      body: JSON.stringify(action),
    });
    const body = await res.json();
    setOutcome(body.kind === undefined ? { kind: 'failed', message: body.error } : { ...body, action });
  };
  return html`<h1>Release ${key}</h1>
    <p data-testid="state"><${StateBadge} r=${d.row} /> ${d.progress.message || d.row.message}</p>
    <${Countdown} d=${d} />
    <${VerificationLine} v=${d.verification} />
    <${Actions} d=${d} ask=${ask} perms=${perms} />
    <${Outcome} outcome=${outcome} ask=${ask} />
    ${confirm === undefined ? null : html`<${Confirm} c=${confirm} warning=${unpinWarning(confirm, d)} base=${base} run=${run} cancel=${() => setConfirm(undefined)} />`}
    <${Overview} d=${d} />
    <${Rollout} d=${d} />
    <${Verification} v=${d.verification} />
    <${Timeline} items=${d.timeline} />
    <${Objects} entries=${d.health.entries} />
    <${Tree} base=${base} d=${d} />
    <${Hooks} hooks=${d.progress.hooks.list} all=${d.health.hooks.length} renderRef=${d.progress.renderRef} base=${base} />
    <${Drift} drift=${d.drift} />
    <${DiffSection} base=${base} d=${d} />
    <${History} h=${history} d=${d} ask=${ask} base=${base} perms=${perms} />`;
}

const ACTION_NAMES = {
  sync: 'Sync',
  forceSync: 'Forced sync',
  approve: 'Approve',
  pin: 'Pin',
  rollback: 'Rollback',
  unpin: 'Unpin',
  suspend: 'Suspend',
  resume: 'Resume',
};

/** The permissions the pre-check found missing, each with the actions it takes away. */
function missing(perms) {
  const out = new Map();
  for (const [kind, c] of Object.entries(perms?.actions ?? {})) {
    if (c.allowed) continue;
    const k = `${c.verb} ${c.group} ${c.resource}`;
    if (!out.has(k)) out.set(k, { ...c, kinds: [] });
    out.get(k).kinds.push(ACTION_NAMES[kind] ?? kind);
  }
  return [...out.values()];
}

function PermissionNote({ perms }) {
  if (perms === undefined) return null;
  if (perms.error !== undefined)
    return html`<p class="banner error" role="status">Could not check your permissions: ${perms.error}</p>`;
  const lacking = missing(perms);
  if (lacking.length === 0) return null;
  return html`<div class="banner error" id="precheck" data-testid="permission-precheck" role="status">
    ${lacking.map(
      (
        m,
      ) => html`<p><strong>Permission missing:</strong> you may not <code>${m.verb}</code> <code>${m.resource}</code>
        ${m.group ? html` (API group <code>${m.group}</code>)` : null} in namespace <code>${m.namespace}</code>,
        so ${m.kinds.join(', ')} ${m.kinds.length === 1 ? 'is' : 'are'} not offered.</p>`,
    )}</div>`;
}

/** Each action's dialog: a title that names it, what it does, and the button that does it. */
const DIALOGS = {
  sync: () => ({
    title: 'Sync now',
    verb: 'Sync',
    text: 'Asks the controller to reconcile this Release now: fetch the source, render, apply what changed.',
  }),
  forceSync: () => ({
    title: 'Force a sync',
    verb: 'Force sync',
    text: 'The next reconcile opens the manual gate once, re-applies every object, re-arms the hooks and retries a Failed or RolledBack render once.',
  }),
  approve: (ref) => ({
    title: `Approve render ${short(ref)}`,
    verb: 'Approve and apply',
    text: 'The controller applies this render: the diff below is what changes in the cluster.',
    diff: ref,
  }),
  pin: (ref, revision) => ({
    title: `Pin render ${short(ref)}`,
    verb: 'Pin',
    text: `convoy applies render ${short(ref)} (revision ${revision}) and stops following the source until you unpin.`,
  }),
  rollback: (ref, revision) => ({
    title: `Roll back to revision ${revision}`,
    verb: 'Roll back',
    text: `convoy applies the last healthy render ${short(ref)} (revision ${revision}) and pins it: it stops following the source until you unpin.`,
  }),
  unpin: () => ({
    title: 'Unpin and follow the source',
    verb: 'Unpin',
    text: 'convoy follows the source again and applies its newest render.',
  }),
  suspend: () => ({
    title: 'Suspend this Release',
    verb: 'Suspend',
    text: 'convoy neither syncs nor rolls it back until resumed.',
  }),
  resume: () => ({ title: 'Resume this Release', verb: 'Resume', text: 'convoy syncs this Release again.' }),
};

/** A confirmation request for `action`, with its dialog's words. */
const request = (action, ...args) => ({ action, ...DIALOGS[action.kind](...args) });

function Actions({ d, ask, perms }) {
  const p = d.policy;
  const cur = d.currentRender?.renderRef;
  const { rollback, unpin } = d.offers;
  // Until the pre-check answers, and for what it refuses, the button is disabled and points at the note.
  const may = (kind) => perms?.actions?.[kind]?.allowed === true || perms?.error !== undefined;
  const gate = (kind) => (may(kind) ? {} : { disabled: true, 'aria-describedby': 'precheck' });
  return html`<${PermissionNote} perms=${perms} />
  <div class="actions" role="group" aria-label="Actions">
    <button type="button" ...${gate('sync')} onClick=${() => ask(request({ kind: 'sync' }))}>Sync</button>
    <button type="button" ...${gate('forceSync')} onClick=${() => ask(request({ kind: 'forceSync' }))}>Forced sync</button>
    ${
      p.mode === 'Manual' && cur !== undefined
        ? html`<button type="button" ...${gate('approve')} class="primary" onClick=${() =>
            ask(request({ kind: 'approve', renderRef: cur }, cur))}>Approve…</button>`
        : null
    }
    ${
      rollback.kind === 'offered'
        ? html`<button type="button" ...${gate('rollback')} class="danger" onClick=${() =>
            ask(request({ kind: 'rollback' }, rollback.renderRef, rollback.revision))}>Rollback</button>`
        : html`<button type="button" disabled aria-describedby="rollback-why">Rollback</button>`
    }
    ${
      unpin.kind === 'offered'
        ? html`<button type="button" ...${gate('unpin')} onClick=${() => ask(request({ kind: 'unpin' }))}>Unpin</button>`
        : null
    }
    ${
      p.suspend
        ? html`<button type="button" ...${gate('resume')} onClick=${() => ask(request({ kind: 'resume' }))}>Resume</button>`
        : html`<button type="button" ...${gate('suspend')} onClick=${() => ask(request({ kind: 'suspend' }))}>Suspend</button>`
    }
  </div>
  ${rollback.kind === 'disabled' ? html`<p class="note" id="rollback-why" data-testid="rollback-why">Rollback is not offered: ${rollback.reason}.</p>` : null}`;
}

/** What Unpin would re-apply right after a rollback (offers.ts), said before the click. */
function UnpinWarning({ w }) {
  // (htm drops whitespace that holds a line break: each space between words stays on its line)
  const revision = w.revision ? html`revision <span class="mono">${w.revision}</span> ` : '';
  return html`<p class="banner warn" data-testid="unpin-warning"><strong>Warning:</strong> unpinning re-applies the source's render. Its last one, ${revision}(render <span class="mono">${short(w.renderRef)}</span>), rolled back${
    w.at
      ? html` at <time datetime=${w.at} title=${absolute(w.at)}>${clock(w.at)}</time> (<${When} t=${w.at} />)`
      : ''
  }${w.reason ? ` after ${w.reason}` : ''}: unless the source changed since, it will likely roll back again.</p>`;
}

/**
 * The warning an Unpin's confirmation shows, read from the page's data as it is now, not when the
 * dialog opened: the Undo of a Pin opens it before the Release's watch has delivered the pin, and
 * the warning appears when it does.
 */
const unpinWarning = (c, d) =>
  c.action.kind === 'unpin' && d.offers.unpin.kind === 'offered' ? d.offers.unpin.warning : undefined;

function Confirm({ c, warning, base, run, cancel }) {
  const ref = useRef(null);
  const [diff, setDiff] = useState(c.diff === undefined ? undefined : { loading: true });
  useEffect(() => {
    ref.current?.showModal();
    if (c.diff !== undefined) {
      getJson(`${base}/diff?render=${encodeURIComponent(c.diff)}`).then(setDiff, (err) =>
        setDiff({ error: err.message }),
      );
    }
  }, []);
  const ready = diff === undefined || diff.lines !== undefined;
  return html`<dialog ref=${ref} aria-labelledby="confirm-title" aria-describedby="confirm-text" onCancel=${cancel} onClose=${cancel}>
    <h2 id="confirm-title">${c.title}</h2>
    <p id="confirm-text">${c.text}</p>
    ${warning === undefined ? null : html`<${UnpinWarning} w=${warning} />`}
    ${diff === undefined ? null : html`<${DiffView} diff=${diff} />`}
    <div class="actions">
      <button type="button" class=${c.action.kind === 'rollback' ? 'danger' : 'primary'} disabled=${!ready} onClick=${() => run(c.action)}>${c.verb}</button>
      <button type="button" onClick=${cancel}>Cancel</button>
    </div>
  </dialog>`;
}

/** What an action did, in a sentence, and the next step as a button (an undo) or a link. */
function done(action) {
  switch (action.kind) {
    case 'sync':
      return { text: 'Sync requested: the controller reconciles this Release now.' };
    case 'forceSync':
      return { text: 'Forced sync requested: the next reconcile re-applies everything.' };
    case 'approve':
      return { text: `Approved render ${short(action.renderRef)}: the controller applies it now.` };
    case 'pin':
      return { text: `Pinned render ${short(action.renderRef)}.`, undo: { kind: 'unpin' } };
    case 'rollback':
      return { text: 'Rolled back: the last healthy render is pinned.', undo: { kind: 'unpin' } };
    case 'unpin':
      return { text: 'Unpinned: convoy follows the source again.' };
    case 'suspend':
      return { text: 'Suspended.', undo: { kind: 'resume' } };
    case 'resume':
      return { text: 'Resumed.', undo: { kind: 'suspend' } };
    default:
      return { text: `${action.kind} done.` };
  }
}

function Outcome({ outcome, ask }) {
  if (outcome === undefined) return html`<div role="status" aria-live="polite"></div>`;
  switch (outcome.kind) {
    case 'running':
      return html`<div role="status" aria-live="polite">Working on ${DIALOGS[outcome.action.kind]?.().verb ?? outcome.action.kind}…</div>`;
    case 'done': {
      const r = done(outcome.action);
      return html`<div class="banner ok" role="status" aria-live="polite" data-outcome="done">
        <p>${r.text}</p>
        <div class="actions">
          ${r.undo ? html`<button type="button" onClick=${() => ask(request(r.undo))}>Undo: ${DIALOGS[r.undo.kind]().verb}</button>` : null}
          <a href="#h-timeline">See it in the timeline</a>
        </div>
        <details><summary>What the CLI printed</summary><pre>${outcome.lines.join('\n')}</pre></details>
      </div>`;
    }
    case 'forbidden':
      return html`<div class="banner error" role="alert" data-outcome="forbidden">
        <strong>Permission denied:</strong> you may not <code>${outcome.verb}</code> <code>${outcome.resource}</code>
        ${outcome.group ? html` (API group <code>${outcome.group}</code>)` : null} in namespace <code>${outcome.namespace}</code>.
        <pre>${outcome.message}</pre></div>`;
    default:
      return html`<div class="banner error" role="alert"><pre>${outcome.message}</pre></div>`;
  }
}

function Overview({ d }) {
  const p = d.policy;
  return html`<section aria-labelledby="h-overview"><h2 id="h-overview">Overview</h2>
    <dl class="facts">
      <dt>State</dt><dd><${StateBadge} r=${d.row} /> ${d.row.reason}</dd>
      <dt>Health</dt><dd><${HealthBadge} r=${d.row} /></dd>
      <dt>Revision</dt><dd class="mono">${d.row.revision}</dd>
      <dt>Source</dt><dd>${d.source}</dd>
      <dt>Cluster</dt><dd>${d.row.cluster}</dd>
      <dt>Sync policy</dt><dd>${p.mode}${p.suspend ? ', suspended' : ''}${p.pin ? `, pinned to ${short(p.pin)}` : ''}</dd>
      <dt>Failure policy</dt><dd>${p.deadline === undefined ? 'none (no rollout)' : `deadline ${p.deadline}, rollback ${p.rollback}`}</dd>
      <dt>Current render</dt><dd class="mono">${short(d.currentRender?.renderRef)}${d.awaitingApproval ? ' (awaiting approval)' : ''}</dd>
      <dt>Last healthy</dt><dd class="mono">${d.lastHealthy ? html`${short(d.lastHealthy.renderRef)} since <${When} t=${d.lastHealthy.time} />` : '-'}</dd>
    </dl></section>`;
}

/** The current time, again every `ms`: for the one component that counts down. */
function useNow(ms) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

/**
 * What happens to a Progressing rollout and when: "rolls back to revision X at 12:04:10 (in 42 s)
 * unless every object is Healthy", with the wave and the hooks of the current render in progress.
 */
function Countdown({ d }) {
  const now = useNow(1000);
  const ro = d.rollout;
  if (ro === undefined || ro.state !== 'Progressing') return null;
  const p = d.progress;
  const running = p.hooks.list.filter((k) => hookState(k) === 'Running').map((k) => k.name);
  const where = [
    p.waves.current === undefined ? null : `at wave ${p.waves.current} of ${p.waves.total}`,
    running.length === 0 ? null : `hook ${running.join(', ')} running`,
  ].filter(Boolean);
  const what =
    ro.onFailure.kind === 'rollback'
      ? html`rolls back to revision <span class="mono">${ro.onFailure.revision}</span>`
      : html`is marked Failed (no rollback: ${ro.onFailure.why})`;
  let when;
  if (ro.deadlineAt === undefined)
    when = html` once the deadline runs out; its clock starts when the render is applied`;
  else {
    const left = Date.parse(ro.deadlineAt) - now;
    when = html` at <time datetime=${ro.deadlineAt} title=${absolute(ro.deadlineAt)}>${clock(ro.deadlineAt)}</time> (${
      left > 0
        ? `in ${span(left)}`
        : `the deadline passed ${span(left)} ago: the controller judges it at its next reconcile`
    })`;
  }
  return html`<p class="banner info" data-testid="countdown" role="status">
    <strong>Revision <span class="mono">${ro.revision ?? short(ro.renderRef)}</span> ${what}${when} unless every object is Healthy.</strong>
    ${where.length === 0 ? null : html` Now ${where.join(', ')}.`}</p>`;
}

/**
 * The verification of the rollout's render in one line (src/ui/verification.ts): "verifying: 3 min left
 * of the 5 min soak", "verification failed: error-rate 0.072 > 0.01 at 12:03:10".
 */
function VerificationLine({ v }) {
  const now = useNow(1000);
  if (v === undefined) return null;
  const soak = v.soakMs === undefined ? '' : ` ${span(v.soakMs)}`;
  const at = (t) => html`<time datetime=${t} title=${absolute(t)}>${clock(t)}</time>`;
  let cls;
  let text;
  switch (v.phase) {
    case 'Running': {
      cls = 'info';
      const left = v.soakEndsAt === undefined ? undefined : Date.parse(v.soakEndsAt) - now;
      text =
        left === undefined
          ? html`verifying since ${at(v.startedAt)}`
          : left > 0
            ? html`verifying: ${span(left)} left of the${soak} soak (ends at ${at(v.soakEndsAt)})`
            : html`verifying: the${soak} soak ended ${span(left)} ago; the observer decides at its next measurement`;
      break;
    }
    case 'Passed':
      cls = 'ok';
      text = html`verification passed: ${v.checks.length} ${v.checks.length === 1 ? 'check' : 'checks'} over the${soak} soak${
        v.finishedAt === undefined ? '' : html`, at ${at(v.finishedAt)}`
      }`;
      break;
    case 'Failed':
      cls = 'error';
      text =
        v.failure === undefined
          ? html`verification failed${v.finishedAt === undefined ? '' : html` at ${at(v.finishedAt)}`}`
          : html`verification failed: ${v.failure.text} at ${at(v.failure.at)}`;
      break;
    case 'Inconclusive':
      cls = 'warn';
      text = html`verification inconclusive: the rollout holds until someone approves the render or rolls it back`;
      break;
    default:
      cls = 'warn';
      text = html`verification ${v.phase}`;
  }
  return html`<p class=${`banner ${cls}`} data-testid="verification-line" role="status">
    <strong>${text}</strong>${v.message ? html` <span>${v.message}</span>` : null}</p>`;
}

/** A number as a chart label: at most 4 significant digits. */
const figure = (n) => String(Number(n.toPrecision(4)));

/**
 * One check's measurements over the soak as a small SVG chart: each point in its phase's colour (and
 * named in its tooltip), the threshold when the condition is a plain comparison, the soak's end.
 */
function CheckChart({ c, v }) {
  const W = 400;
  const H = 120;
  const L = 48;
  const R = 10;
  const T = 12;
  const B = 20;
  const t0 = Date.parse(v.startedAt);
  const times = c.measurements.map((m) => Date.parse(m.at));
  const end = Math.max(t0 + 1000, v.soakEndsAt === undefined ? 0 : Date.parse(v.soakEndsAt), ...times);
  const values = c.measurements.filter((m) => m.number !== undefined).map((m) => m.number);
  if (c.threshold !== undefined) values.push(c.threshold.value);
  let lo = values.length === 0 ? 0 : Math.min(...values);
  let hi = values.length === 0 ? 1 : Math.max(...values);
  const pad = hi === lo ? Math.abs(hi) * 0.1 || 1 : (hi - lo) * 0.1;
  // A rate or a latency never goes below 0: the axis starts there rather than at a made-up -0.005.
  lo = lo >= 0 ? Math.max(0, lo - pad) : lo - pad;
  hi += pad;
  const x = (t) => L + ((t - t0) / (end - t0)) * (W - L - R);
  const y = (n) => T + (1 - (n - lo) / (hi - lo)) * (H - T - B);
  const points = c.measurements.map((m) => ({ m, cx: x(Date.parse(m.at)), cy: y(m.number ?? lo) }));
  const line = points
    .filter((p) => p.m.number !== undefined)
    .map((p) => `${p.cx.toFixed(1)},${p.cy.toFixed(1)}`)
    .join(' ');
  const last = c.measurements.at(-1);
  const label = `${c.name}: ${c.measurements.length} measurements over the soak${
    last === undefined ? '' : `, the last ${last.value ?? 'without a value'} (${last.phase})`
  }${c.threshold === undefined ? '' : `, threshold ${c.threshold.op} ${figure(c.threshold.value)}`}`;
  const soakX = v.soakEndsAt === undefined ? undefined : x(Date.parse(v.soakEndsAt));
  return html`<svg class="chart" viewBox=${`0 0 ${W} ${H}`} width=${W} height=${H} role="img" aria-label=${label} data-testid="chart">
    <line class="axis" x1=${L} y1=${H - B} x2=${W - R} y2=${H - B} />
    <line class="axis" x1=${L} y1=${T} x2=${L} y2=${H - B} />
    <text class="tick" x=${L - 4} y=${T + 4} text-anchor="end">${figure(hi)}</text>
    <text class="tick" x=${L - 4} y=${H - B} text-anchor="end">${figure(lo)}</text>
    <text class="tick" x=${L} y=${H - 4}>${clock(v.startedAt)}</text>
    ${
      c.threshold === undefined
        ? null
        : html`<g data-testid="threshold"><line class="threshold" x1=${L} y1=${y(c.threshold.value)} x2=${W - R} y2=${y(c.threshold.value)} />
          <text class="tick" x=${W - R} y=${y(c.threshold.value) - 3} text-anchor="end">${c.threshold.meaning === 'failure' ? 'fails' : 'passes'} ${c.threshold.op} ${figure(c.threshold.value)}</text></g>`
    }
    ${
      soakX === undefined
        ? null
        : html`<g data-testid="soak-end"><line class="soak-end" x1=${soakX} y1=${T} x2=${soakX} y2=${H - B} />
          <text class="tick" x=${soakX} y=${H - 4} text-anchor="end">soak ends ${clock(v.soakEndsAt)}</text></g>`
    }
    ${line === '' ? null : html`<polyline class="series" points=${line} />`}
    ${points.map(
      (
        p,
      ) => html`<circle class=${`pt m-${p.m.phase}`} cx=${p.cx.toFixed(1)} cy=${p.cy.toFixed(1)} r=${p.m.number === undefined ? 3 : 4} data-phase=${p.m.phase}>
        <title>${clock(p.m.at)}: ${p.m.value ?? 'no value'} (${p.m.phase})${p.m.message ? `: ${p.m.message}` : ''}</title></circle>`,
    )}
  </svg>`;
}

/** Each check of the verification: its chart, and beside it the last value, its phase and the condition. */
function Verification({ v }) {
  if (v === undefined) return null;
  return html`<section aria-labelledby="h-verification"><h2 id="h-verification">Verification</h2>
    <p>Render <span class="mono">${short(v.renderRef)}</span> <${Badge} word=${v.phase} />${v.reason ? ` ${v.reason}` : ''}, soak started <${When} t=${v.startedAt} />${
      v.finishedAt !== undefined
        ? html`, decided <${When} t=${v.finishedAt} />`
        : v.soakEndsAt === undefined
          ? ''
          : html`, ends <${When} t=${v.soakEndsAt} />`
    }.</p>
    <ul class="checks">${v.checks.map((c) => {
      const last = c.measurements.at(-1);
      return html`<li data-check=${c.name}>
        <${CheckChart} c=${c} v=${v} />
        <dl class="facts">
          <dt>Check</dt><dd><strong>${c.name}</strong> <${Badge} word=${c.phase} />${c.provider ? ` ${c.provider}` : ''}</dd>
          <dt>Last value</dt><dd data-testid="last">${
            last === undefined
              ? 'none yet'
              : html`<span class="mono">${last.value ?? 'no value'}</span> <${Badge} word=${last.phase} /> at <time datetime=${last.at} title=${absolute(last.at)}>${clock(last.at)}</time>`
          }</dd>
          <dt>Condition</dt><dd class="mono" data-testid="condition">${c.condition ?? '-'}</dd>
          <dt>Measured</dt><dd>${c.successful} successful, ${c.failed} failed, ${c.inconclusive} inconclusive</dd>
          ${c.query ? html`<dt>Query</dt><dd class="mono">${c.query}</dd>` : null}
          ${c.message ? html`<dt>Message</dt><dd class="msg">${c.message}</dd>` : null}
        </dl></li>`;
    })}</ul></section>`;
}

function Rollout({ d }) {
  const p = d.progress;
  return html`<section aria-labelledby="h-rollout"><h2 id="h-rollout">Rollout</h2>
    <p data-testid="progress">State <${Badge} word=${p.state} />, waves ${p.waves.done}/${p.waves.total}${
      p.waves.current === undefined ? '' : ` (at wave ${p.waves.current})`
    }, objects ${p.objects.healthy}/${p.objects.total} healthy${
      p.objects.renderRef ? ` (of ${short(p.objects.renderRef)})` : ''
    }, hooks ${p.hooks.succeeded} succeeded, ${p.hooks.running} running, ${p.hooks.failed} failed</p>
    <ul class="waves">
      ${p.waves.list.map(
        (w) => html`<li data-wave=${w.wave}>
          <span>Wave ${w.wave}</span>
          <progress max=${Math.max(1, w.objects)} value=${w.healthy} aria-label=${`wave ${w.wave}: ${w.healthy} of ${w.objects} healthy`}></progress>
          <span>${w.healthy}/${w.objects} healthy</span> <${Badge} word=${w.done ? 'done' : 'waiting'} />
        </li>`,
      )}
    </ul></section>`;
}

function Timeline({ items }) {
  return html`<section aria-labelledby="h-timeline"><h2 id="h-timeline">Timeline</h2>
    ${items.length === 0 ? html`<p>Nothing yet.</p>` : null}
    <ol class="timeline">
      ${items.map(
        (t) => html`<li data-kind=${t.kind}>
          <span class="time"><${When} t=${t.time} /></span> <strong>${t.title}</strong>
          ${t.result ? html` <${Badge} word=${t.result} />` : null}
          ${t.revision ? html` revision <span class="mono">${t.revision}</span>` : null}
          ${t.renderRef ? html` render <span class="mono">${short(t.renderRef)}</span>` : null}
          ${t.trigger ? html`<div data-trigger=${t.trigger.kind}>triggered by: ${t.trigger.text}</div>` : null}
          ${t.reason ? html`<div>reason: <strong>${t.reason}</strong></div>` : null}
          ${t.deadline ? html`<div>deadline: <${When} t=${t.deadline} /></div>` : null}
          ${t.message ? html`<div class="msg">${t.message}</div>` : null}
        </li>`,
      )}
    </ol></section>`;
}

function Objects({ entries }) {
  return html`<section aria-labelledby="h-objects"><h2 id="h-objects">Objects</h2>
    <div class="table-wrap" tabindex="0" role="region" aria-label="Objects"><table>
      <thead><tr><th scope="col">Wave</th><th scope="col">Object</th><th scope="col">Health</th>
        <th scope="col">Rule</th><th scope="col">Message</th></tr></thead>
      <tbody>${entries.map(
        (e) => html`<tr data-object=${`${e.kind}/${e.name}`}>
          <td>${e.wave}</td>
          <td>${e.kind}${e.group ? `.${e.group}` : ''} <span class="mono">${e.namespace ? `${e.namespace}/` : ''}${e.name}</span></td>
          <td><${Badge} word=${e.state} /></td>
          <td class="mono">${e.rule ?? '-'}</td>
          <td class="msg">${e.message}</td>
        </tr>`,
      )}</tbody>
    </table></div></section>`;
}

function TreeNodes({ nodes, show, root }) {
  return html`<ul class=${root ? 'tree-level tree-root' : 'tree-level'}>${nodes.map(
    (n) => html`<li class="tree-node" data-node=${`${n.kind}/${n.name}`}>
      <span class="node"><span>${n.kind}</span> <span class="mono">${n.name}</span> <${Badge} word=${n.state} />${
        n.detail ? html` <span class="muted">${n.detail}</span>` : null
      }${
        n.apiVersion === ''
          ? null
          : html` <button type="button" class="link" onClick=${() => show(n)}>manifest and Events<span class="visually-hidden"> of ${n.kind} ${n.name}</span></button>`
      }</span>
      ${n.children.length === 0 ? null : html`<${TreeNodes} nodes=${n.children} show=${show} />`}
    </li>`,
  )}</ul>`;
}

/** How often a followed log is read again. */
const FOLLOW_MS = 2000;

/**
 * The last lines of a container of a Pod, read as this user through convoy's API (src/ui/pod-logs.ts);
 * with Follow, read again every 2 s and kept scrolled to the newest line.
 */
function PodLogs({ base, node }) {
  const [container, setContainer] = useState('');
  const [follow, setFollow] = useState(false);
  const [logs, setLogs] = useState(undefined);
  const pre = useRef(null);
  useEffect(() => {
    let live = true;
    const load = () => {
      const q = new URLSearchParams({ namespace: node.namespace, pod: node.name });
      if (container !== '') q.set('container', container);
      getJson(`${base}/podlogs?${q}`).then(
        (b) => live && setLogs(b),
        (err) => live && setLogs({ error: err.message }),
      );
    };
    load();
    const t = follow ? setInterval(load, FOLLOW_MS) : undefined;
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [base, node.namespace, node.name, container, follow]);
  useEffect(() => {
    if (follow && pre.current !== null) pre.current.scrollTop = pre.current.scrollHeight;
  }, [logs, follow]);
  const title = `${node.namespace}/${node.name}`;
  return html`<div data-testid="pod-logs">
    <h4>Logs</h4>
    <div class="actions">
      <label>Container <select value=${logs?.container ?? container} onChange=${(e) => setContainer(e.currentTarget.value)}>
        ${(logs?.containers ?? []).map((c) => html`<option value=${c}>${c}</option>`)}
      </select></label>
      <label><input type="checkbox" checked=${follow} onChange=${(e) => setFollow(e.currentTarget.checked)} /> Follow (read again every ${FOLLOW_MS / 1000} s)</label>
    </div>
    ${
      logs === undefined
        ? html`<p class="loading">Loading…</p>`
        : logs.error !== undefined
          ? html`<div class="banner error" role="alert">Cannot read the logs of ${title}: ${logs.error}</div>`
          : html`<pre ref=${pre} class="diff logs" tabindex="0" role="region" aria-label=${`logs of ${title}, container ${logs.container}`} data-testid="log-lines">${
              logs.lines.length === 0 ? '(no lines yet)' : logs.lines.join('\n')
            }</pre>`
    }</div>`;
}

/** One node's live manifest (managedFields folded, Secret values masked) and its Kubernetes Events. */
function LiveObject({ shown, base }) {
  const { node, body } = shown;
  const title = `${node.kind} ${node.namespace ? `${node.namespace}/` : ''}${node.name}`;
  return html`<section class="live" aria-labelledby="h-live" data-testid="live-object">
    <h3 id="h-live">${title}</h3>
    ${
      body === undefined
        ? html`<p class="loading">Loading…</p>`
        : body.error !== undefined
          ? html`<div class="banner error" role="alert">Cannot read ${title}: ${body.error}</div>`
          : html`${body.notes.map((n) => html`<p class="note">${n}</p>`)}
            ${node.kind === 'Pod' ? html`<${PodLogs} base=${base} node=${node} />` : null}
            <h4>Events</h4>
            ${
              body.events.length === 0
                ? html`<p>No Events (Kubernetes keeps them for an hour).</p>`
                : html`<div class="table-wrap" tabindex="0" role="region" aria-label=${`Events of ${title}`}><table data-testid="events">
                  <thead><tr><th scope="col">When</th><th scope="col">Type</th><th scope="col">Reason</th><th scope="col">Count</th><th scope="col">Message</th></tr></thead>
                  <tbody>${body.events.map(
                    (
                      e,
                    ) => html`<tr><td class="time"><${When} t=${e.time} /></td><td><${Badge} word=${e.type === 'Warning' ? 'Warning' : 'Normal'} /></td>
                      <td>${e.reason}</td><td>${e.count}</td><td class="msg">${e.message}</td></tr>`,
                  )}</tbody></table></div>`
            }
            <h4>Live manifest</h4>
            <pre class="diff" tabindex="0" role="region" aria-label=${`live manifest of ${title}`} data-testid="manifest">${body.yaml}</pre>`
    }</section>`;
}

/**
 * The render's objects with their live descendants (src/ui/tree.ts), read as this user; read again
 * whenever the Release's health or rollout figures move, and on request.
 */
function Tree({ base, d }) {
  const [tree, setTree] = useState(undefined);
  const [shown, setShown] = useState(undefined);
  const load = () => getJson(`${base}/tree`).then(setTree, (err) => setTree({ error: err.message }));
  const show = (node) => {
    setShown({ node });
    const q = new URLSearchParams({
      apiVersion: node.apiVersion,
      kind: node.kind.split('.')[0],
      namespace: node.namespace,
      name: node.name,
    });
    getJson(`${base}/live?${q}`).then(
      (body) => setShown({ node, body }),
      (err) => setShown({ node, body: { error: err.message } }),
    );
  };
  const moved = JSON.stringify([d.progress.objects, d.progress.waves.done, d.health.summary]);
  useEffect(() => {
    load();
  }, [moved]);
  return html`<section aria-labelledby="h-tree"><h2 id="h-tree">Resource tree</h2>
    <div class="actions"><button type="button" onClick=${load}>Refresh the tree</button></div>
    ${
      tree === undefined
        ? html`<p class="loading">Loading…</p>`
        : tree.error !== undefined
          ? html`<div class="banner error" role="alert">Cannot read the tree: ${tree.error}</div>`
          : html`${tree.notes.map((n) => html`<p class="note">${n}</p>`)}
            <div class="tree" data-testid="tree"><${TreeNodes} nodes=${tree.nodes} show=${show} root=${true} /></div>
            ${shown === undefined ? null : html`<${LiveObject} shown=${shown} base=${base} />`}`
    }</section>`;
}

/**
 * A hook's state for the run the page shows: a re-armed hook keeps the previous run's terminal state
 * until the observer polls its new workload (finishedAt before createdAt), so that is not yet known.
 */
const hookState = (k) =>
  (k.state === 'Succeeded' || k.state === 'Failed') &&
  valid(k.finishedAt) &&
  valid(k.createdAt) &&
  Date.parse(k.finishedAt) < Date.parse(k.createdAt)
    ? 'Running'
    : (k.state ?? 'Running');

/** The hooks of the current render only: an earlier render's Succeeded is not this rollout's. */
function Hooks({ hooks, all, renderRef, base }) {
  const [logs, setLogs] = useState({});
  if (all === 0) return null;
  if (hooks.length === 0)
    return html`<section aria-labelledby="h-hooks"><h2 id="h-hooks">Hooks</h2>
      <p data-testid="hooks-none">No hook of the current render ${short(renderRef)} has started yet (${all} of earlier renders not shown).</p></section>`;
  const load = (name) =>
    getJson(`${base}/hooks/${encodeURIComponent(name)}/logs`).then(
      (b) => setLogs((l) => ({ ...l, [name]: b.lines.join('\n') })),
      (err) => setLogs((l) => ({ ...l, [name]: `cannot read the logs: ${err.message}` })),
    );
  return html`<section aria-labelledby="h-hooks"><h2 id="h-hooks">Hooks</h2>
    <div class="table-wrap" tabindex="0" role="region" aria-label="Hooks"><table>
      <thead><tr><th scope="col">Hook</th><th scope="col">Phase</th><th scope="col">State</th>
        <th scope="col">Message</th><th scope="col">Logs</th></tr></thead>
      <tbody>${hooks.map(
        (k) => html`<tr>
          <td>${k.name}</td><td>${k.phase ?? '-'}</td><td><${Badge} word=${hookState(k)} /></td>
          <td class="msg">${[k.reason, k.message].filter(Boolean).join(': ')}</td>
          <td><button type="button" onClick=${() => load(k.name)}>Show logs of ${k.name}</button>
            ${logs[k.name] === undefined ? null : html`<pre class="diff" tabindex="0" role="region" aria-label=${`logs of ${k.name}`}>${logs[k.name]}</pre>`}</td>
        </tr>`,
      )}</tbody>
    </table></div></section>`;
}

function Drift({ drift }) {
  return html`<section aria-labelledby="h-drift"><h2 id="h-drift">Drift</h2>
    <p>${drift.drifted} of ${drift.total} objects drifted from the applied render.</p>
    ${drift.objects.length === 0 ? null : html`<ul>${drift.objects.map((o) => html`<li><span class="mono">${o.object}</span>: ${o.message}</li>`)}</ul>`}
  </section>`;
}

function lineClass(l) {
  if (l.startsWith('+++') || l.startsWith('---') || l.startsWith('@@')) return 'd-head';
  if (l.startsWith('+')) return 'd-add';
  if (l.startsWith('-')) return 'd-del';
  return undefined;
}

function DiffView({ diff }) {
  if (diff.loading) return html`<p role="status">Computing the diff…</p>`;
  if (diff.error !== undefined)
    return html`<div class="banner error" role="alert">Cannot show the diff: ${diff.error}</div>`;
  // One block element per line: htm drops a newline written inside a template, so a line must never
  // rely on a "\n" of its own to end (unchanged lines and the summary ran together into one).
  return html`<pre class="diff" data-testid="diff" tabindex="0" role="region" aria-label="diff">${diff.lines.map(
    (l) => html`<span class=${`d-line ${lineClass(l) ?? ''}`}>${l === '' ? ' ' : l}</span>`,
  )}</pre>`;
}

function DiffSection({ base, d }) {
  const [diff, setDiff] = useState(undefined);
  const show = (ref) => {
    setDiff({ loading: true });
    getJson(`${base}/diff${ref ? `?render=${encodeURIComponent(ref)}` : ''}`).then(setDiff, (err) =>
      setDiff({ error: err.message }),
    );
  };
  const current = d.currentRender?.renderRef;
  // A diff answers for the moment it was asked: a new render or rollout state makes it stale.
  useEffect(() => setDiff(undefined), [current, d.rollout?.state]);
  // The current render, and the renders of the rollout and a failed attempt when they differ from it.
  const refs = [
    ...new Set(
      [
        current,
        ...d.timeline.filter((t) => t.kind === 'rollout' || t.kind === 'attempt').map((t) => t.renderRef),
      ].filter((r) => r !== undefined),
    ),
  ];
  return html`<section aria-labelledby="h-diff"><h2 id="h-diff">Diff against live objects</h2>
    <div class="actions">
      ${refs.map(
        (ref) => html`<button type="button" onClick=${() => show(ref === current ? undefined : ref)}>
          Diff render ${short(ref)}${ref === current ? ' (current)' : ''}</button>`,
      )}
    </div>
    ${diff === undefined ? null : html`<${DiffView} diff=${diff} />`}</section>`;
}

function History({ h, d, ask, base, perms }) {
  const [shown, setShown] = useState(undefined);
  if (h === undefined) return html`<section><h2>History</h2><p class="loading">Loading…</p></section>`;
  if (h.error !== undefined) {
    return html`<section><h2>History</h2><div class="banner error" role="alert">${h.error}</div></section>`;
  }
  const view = (ref) =>
    getJson(`${base}/renders/${encodeURIComponent(ref)}`).then(
      (r) => setShown({ ref, text: JSON.stringify(r.objects ?? r, null, 2) }),
      (err) => setShown({ ref, text: `cannot read the render: ${err.message}` }),
    );
  return html`<section aria-labelledby="h-history"><h2 id="h-history">History</h2>
    ${h.failedAttempt ? html`<p class="banner error">Newest attempt failed: ${h.failedAttempt.reason}: ${h.failedAttempt.message}</p>` : null}
    <div class="table-wrap" tabindex="0" role="region" aria-label="History"><table>
      <thead><tr><th scope="col">Applied</th><th scope="col">Revision</th><th scope="col">Render</th>
        <th scope="col">Result</th><th scope="col">Triggered by</th><th scope="col">Stored</th><th scope="col">Actions</th></tr></thead>
      <tbody>${(h.history ?? []).map(
        (e, i, all) => html`<tr>
          <td class="time">${
            e.appliedAt === undefined
              ? html`not applied (tried <${When} t=${e.attemptedAt} />)`
              : html`<${When} t=${e.appliedAt} />`
          }</td><td class="mono">${e.revision}</td>
          <td class="mono">${short(e.renderRef)}</td>
          <td>${e.result ? html`<${Badge} word=${e.result} /> ${e.reason ?? ''}` : '-'}</td>
          <td>${e.triggeredBy ?? '-'}</td>
          <td>${e.stored ? 'yes' : 'no'}</td>
          <td>${
            // A render applied again (a rollback to it) is offered once, on its newest entry.
            e.stored && all.findLastIndex((x) => x.renderRef === e.renderRef) === i
              ? html`<button type="button" onClick=${() => view(e.renderRef)}>View ${short(e.renderRef)}</button>
                ${
                  d.policy.pin === e.renderRef
                    ? null
                    : html` <button type="button" ...${
                        perms?.actions?.pin?.allowed === false
                          ? { disabled: true, 'aria-describedby': 'precheck' }
                          : {}
                      } onClick=${() =>
                        ask(
                          request({ kind: 'pin', renderRef: e.renderRef }, e.renderRef, e.revision),
                        )}>Pin ${short(e.renderRef)}</button>`
                }`
              : null
          }</td>
        </tr>`,
      )}</tbody>
    </table></div>
    ${shown === undefined ? null : html`<h3>Render ${short(shown.ref)}</h3><pre class="diff" tabindex="0" role="region" aria-label=${`render ${short(shown.ref)}`}>${shown.text}</pre>`}
  </section>`;
}

// --- Fleet pages ----------------------------------------------------------------------------------

/** A fleet page's body: read from `path`, again on every fleet change; undefined until it came. */
function useFleetBody(path) {
  const s = useStore();
  const [body, setBody] = useState(undefined);
  useEffect(() => follow(undefined), []);
  useEffect(() => {
    getJson(path).then(setBody, (err) => setBody({ error: err.message }));
  }, [s.fleetVersion]);
  return body;
}

/** The page titled `title` while its body loads or when reading it failed; null once it is there. */
const notYet = (title, body) =>
  body === undefined
    ? html`<h1>${title}</h1><p class="loading">Loading…</p>`
    : body.error
      ? html`<h1>${title}</h1><div class="banner error" role="alert">${body.error}</div>`
      : null;

// --- Clusters -------------------------------------------------------------------------------------

function ClustersPage() {
  const body = useFleetBody('/api/clusters');
  const waiting = notYet('Clusters', body);
  if (waiting !== null) return waiting;
  return html`<h1>Clusters</h1>
    <${Problems} problems=${body.problems} />
    ${
      body.clusters.length === 0
        ? html`<p class="empty" data-testid="empty">No Cluster objects: every Release deploys to the cluster convoy runs in.${' '}
            <${DocLink} page="fleets.md">Fleets</${DocLink}> shows how to add other clusters.</p>`
        : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Clusters"><table>
      <thead><tr><th scope="col">Namespace</th><th scope="col">Name</th><th scope="col">Ready</th>
        <th scope="col">Wave</th><th scope="col">Version</th><th scope="col">Message</th></tr></thead>
      <tbody>${body.clusters.map(
        (c) => html`<tr key=${c.key}><td>${c.namespace}</td><td>${c.name}${c.paused ? ' (paused)' : ''}</td>
          <td><${Badge} word=${c.ready} title=${c.reason} /></td><td>${c.wave}</td>
          <td>${c.serverVersion || '-'}</td><td class="msg">${c.reason}${c.message ? `: ${c.message}` : ''}</td></tr>`,
      )}</tbody>
    </table></div>`
    }`;
}

// --- ReleaseSets ----------------------------------------------------------------------------------

function ReleaseSetsPage() {
  const body = useFleetBody('/api/releasesets');
  const waiting = notYet('Release sets', body);
  if (waiting !== null) return waiting;
  const link = (ns, name) => `${ROOT}/releases/${encodeURIComponent(ns)}/${encodeURIComponent(name)}`;
  return html`<h1>Release sets</h1>
    <${Problems} problems=${body.problems} />
    ${
      body.sets.length === 0
        ? html`<p class="empty" data-testid="empty">No ReleaseSets: a ReleaseSet rolls one revision out to many clusters, wave by wave.${' '}
            <${DocLink} page="fleets.md">Fleets</${DocLink}> shows how to write one.</p>`
        : null
    }
    ${body.sets.map(
      (set) => html`<section key=${set.key} aria-labelledby=${`set-${set.key}`} data-releaseset=${set.key}>
        <h2 id=${`set-${set.key}`}>${set.key}</h2>
        <p>Ready ${set.ready} <${Badge} word=${set.readyCondition} />, revision <span class="mono">${set.revision}</span>
          ${
            set.train
              ? html`, train <${Badge} word=${set.train.state} /> ${set.train.wave === undefined ? '' : `at wave ${set.train.wave}`}
            ${set.train.reason ? ` ${set.train.reason}` : ''}${set.train.failedCluster ? ` (failed on ${set.train.failedCluster})` : ''}`
              : null
          }
        </p>
        ${set.message ? html`<p class="msg">${set.message}</p>` : null}
        <div class="table-wrap" tabindex="0" role="region" aria-label=${`members of ${set.key}`}><table>
          <thead><tr><th scope="col">Cluster</th><th scope="col">Wave</th><th scope="col">State</th>
            <th scope="col">Health</th><th scope="col">Release</th><th scope="col">Message</th></tr></thead>
          <tbody>${set.members.map(
            (m) => html`<tr><td>${m.cluster}</td><td>${m.wave}</td><td><${Badge} word=${m.state} /></td>
              <td><${Badge} word=${m.health} /></td>
              <td>${m.release ? html`<a href=${link(set.namespace, m.release)}>${m.release}</a>` : '-'}</td>
              <td class="msg">${m.message}</td></tr>`,
          )}</tbody>
        </table></div>
      </section>`,
    )}`;
}

// --- shell ----------------------------------------------------------------------------------------

function App() {
  const route = useRoute();
  const s = useStore();
  useEffect(() => {
    document.title =
      route.page === 'release'
        ? `${route.namespace}/${route.name} · convoy`
        : route.page === 'clusters'
          ? 'Clusters · convoy'
          : route.page === 'releasesets'
            ? 'Release sets · convoy'
            : 'Releases · convoy';
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [route.page, route.namespace, route.name]);
  const cur = (p) => (route.page === p ? 'page' : undefined);
  return html`<div onClick=${go}>
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <p class="brand">convoy</p>
      <nav aria-label="Main"><ul>
        <li><a href=${`${ROOT}/`} aria-current=${cur('releases')}>Releases</a></li>
        <li><a href=${`${ROOT}/clusters`} aria-current=${cur('clusters')}>Clusters</a></li>
        <li><a href=${`${ROOT}/releasesets`} aria-current=${cur('releasesets')}>Release sets</a></li>
      </ul></nav>
    </header>
    <main id="main" tabindex="-1" data-liveness=${s.liveness.kind}>
      <${Liveness} liveness=${s.liveness} />
      ${
        route.page === 'release'
          ? html`<${ReleasePage} key=${`${route.namespace}/${route.name}`} namespace=${route.namespace} name=${route.name} />`
          : route.page === 'clusters'
            ? html`<${ClustersPage} />`
            : route.page === 'releasesets'
              ? html`<${ReleaseSetsPage} />`
              : html`<${ReleasesPage} />`
      }
    </main>
  </div>`;
}

const root = document.getElementById('app');
root.textContent = ''; // the "Loading" line the HTML shows until this module runs
render(html`<${App} />`, root);
