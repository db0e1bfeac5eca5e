// Server-sent events for the pages: every change the watches see is batched for a few milliseconds
// (a rollout touches the Release and its inventory in quick succession, and 1,000 Releases may change
// at once), then each open page gets the rows that changed and, when it shows one Release, that
// Release's whole view again; a change of a Cluster or ReleaseSet is a `fleet` event (those pages re-read).
// Whether convoy's processes run (liveness.ts) is sent when a stream opens and whenever it changes,
// looked at again when a live Lease would lapse. A comment line every 15 s keeps proxies from closing a
// quiet stream.
import type { ServerResponse } from 'node:http';
import type { LiveState } from './live.ts';
import { type Liveness, liveness } from './liveness.ts';
import { type ReleaseDetail, type ReleaseRow, releaseDetail, releaseRow } from './model.ts';

const BATCH_MS = 40;
const KEEPALIVE_MS = 15_000;

interface Subscriber {
  readonly res: ServerResponse;
  /** The Release the page shows ("ns/name"), if any. */
  readonly release: string | undefined;
}

export class EventHub {
  readonly #live: LiveState;
  readonly #subs = new Set<Subscriber>();
  readonly #rows = new Map<string, ReleaseRow>();
  #pending = new Set<string>();
  #fleet = false;
  #problems = false;
  /** The liveness last sent (JSON), and the timer that looks again when a live Lease would lapse. */
  #liveness = '';
  #livenessTimer: NodeJS.Timeout | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #keepalive: NodeJS.Timeout;
  readonly #off: () => void;

  constructor(live: LiveState) {
    this.#live = live;
    this.#off = live.on(({ kind, key }) => {
      if (kind === 'Lease') this.#checkLiveness();
      else if (key === '') this.#problems = true;
      else if (kind === 'Cluster' || kind === 'ReleaseSet') this.#fleet = true;
      else {
        this.#rows.delete(key);
        this.#pending.add(key);
      }
      this.#timer ??= setTimeout(() => this.#flush(), BATCH_MS);
    });
    this.#keepalive = setInterval(() => {
      for (const s of this.#subs) s.res.write(': keepalive\n\n');
    }, KEEPALIVE_MS);
  }

  /** Whether convoy's processes run, as the Leases the watch holds now say. */
  liveness(): Liveness {
    const problem = this.#live.problems().find((p) => p.kind === 'Lease');
    if (problem !== undefined) return { kind: 'unreadable', message: problem.message };
    const leases = this.#live.leases.hasSynced() ? this.#live.leases.cache.list() : undefined;
    const at = liveness(leases, this.#live.leaseNamespace, Date.now());
    if (this.#livenessTimer !== undefined) clearTimeout(this.#livenessTimer);
    this.#livenessTimer =
      at.recheckAt === undefined
        ? undefined
        : setTimeout(() => this.#checkLiveness(), Math.max(0, at.recheckAt - Date.now()) + 50);
    return at.liveness;
  }

  /** Sends the liveness to every page when it changed (a Lease event, or a live one lapsing). */
  #checkLiveness(): void {
    const now = this.liveness();
    const text = JSON.stringify(now);
    if (text === this.#liveness) return;
    this.#liveness = text;
    for (const s of this.#subs) s.res.write(`event: liveness\ndata: ${text}\n\n`);
  }

  /** The row of one Release, cached until it or its inventory changes. */
  row(key: string): ReleaseRow | undefined {
    const cached = this.#rows.get(key);
    if (cached !== undefined) return cached;
    const r = this.#live.release(key);
    if (r === undefined) return undefined;
    const row = releaseRow(r, this.#live.inventory(key));
    this.#rows.set(key, row);
    return row;
  }

  rows(): ReleaseRow[] {
    const out: ReleaseRow[] = [];
    for (const key of this.#live.releases.cache.keys()) {
      const row = this.row(key);
      if (row !== undefined) out.push(row);
    }
    return out.sort((a, b) => a.key.localeCompare(b.key));
  }

  detail(key: string): ReleaseDetail | undefined {
    const r = this.#live.release(key);
    return r === undefined ? undefined : releaseDetail(r, this.#live.inventory(key));
  }

  /** How many pages follow the stream now. */
  get streams(): number {
    return this.#subs.size;
  }

  subscribe(res: ServerResponse, release: string | undefined): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.write('retry: 1000\n\n');
    res.write(`event: liveness\ndata: ${JSON.stringify(this.liveness())}\n\n`);
    const sub: Subscriber = { res, release };
    this.#subs.add(sub);
    res.on('close', () => this.#subs.delete(sub));
  }

  #flush(): void {
    this.#timer = undefined;
    const keys = [...this.#pending];
    this.#pending = new Set();
    const rows: ReleaseRow[] = [];
    const removed: string[] = [];
    for (const key of keys) {
      const row = this.row(key);
      if (row === undefined) removed.push(key);
      else rows.push(row);
    }
    const send = (res: ServerResponse, event: string, data: unknown) =>
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    const problems = this.#problems ? this.#live.problems() : undefined;
    const fleet = this.#fleet;
    this.#problems = false;
    this.#fleet = false;
    const details = new Map<string, ReleaseDetail | null>();
    for (const s of this.#subs) {
      if (rows.length > 0 || removed.length > 0) send(s.res, 'rows', { rows, removed });
      if (problems !== undefined) send(s.res, 'problems', problems);
      if (fleet) send(s.res, 'fleet', {});
      if (s.release !== undefined && keys.includes(s.release)) {
        if (!details.has(s.release)) details.set(s.release, this.detail(s.release) ?? null);
        send(s.res, 'detail', details.get(s.release));
      }
    }
  }

  close(): void {
    this.#off();
    clearInterval(this.#keepalive);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#livenessTimer !== undefined) clearTimeout(this.#livenessTimer);
    for (const s of this.#subs) s.res.end();
    this.#subs.clear();
  }
}
