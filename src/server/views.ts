// The bodies of GET health, history and renders, built from what the cluster holds (ReleaseInventory,
// Release status, the render store) without assessing anything. Pure.
import { type HealthSummary, healthSummary } from '../api/health-summary.ts';
import type {
  AttemptTrigger,
  Condition,
  InventoryEntry,
  InventoryHook,
  ReadyReason,
  Release,
  ReleaseInventory,
} from '../api/types.ts';
import { definedFields } from '../lib/defined.ts';
import { nameOf, namespaceOf } from '../lib/names.ts';
import { maskSecret } from '../render/secret-mask.ts';
import type { Render, StoredRenderMeta } from '../store/types.ts';
import { RESPONSE_KINDS } from './discovery.ts';
import { type ProgressSummary, progressSummary } from './progress.ts';
import { type ReleaseState, releaseState } from './release-state.ts';
import { GROUP_VERSION } from './routes.ts';
import { triggerWords } from './trigger-words.ts';

interface Meta {
  readonly namespace: string;
  readonly name: string;
}

export interface HealthEntryView {
  readonly group: string;
  readonly version?: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly wave: number;
  /** Unknown with message "not assessed yet" when the observer has not written a state. */
  readonly state: NonNullable<InventoryEntry['state']>;
  readonly message: string;
  readonly renderRef?: string;
  readonly assessedRenderRef?: string;
  readonly firstUnhealthy?: string;
  /** The rule (`<ruleSet>/<rule>`) that decided, when the observer recorded one. */
  readonly rule?: string;
}

export interface HookView {
  readonly name: string;
  readonly phase?: string;
  readonly kind?: string;
  readonly renderRef?: string;
  readonly workloadName?: string;
  readonly createdAt?: string;
  readonly state?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly finishedAt?: string;
}

export interface HealthResult {
  readonly apiVersion: typeof GROUP_VERSION;
  readonly kind: typeof RESPONSE_KINDS.health;
  readonly metadata: Meta;
  /** status.lastAttempted.renderRef: the render the entries should have been assessed for. */
  readonly renderRef?: string;
  /** The Release's Healthy condition as the observer last wrote it; absent until it has. */
  readonly healthy?: Condition;
  /** Counted from the inventory entries below (entries without a state count as unknown). */
  readonly summary: HealthSummary;
  readonly entries: readonly HealthEntryView[];
  readonly hooks: readonly HookView[];
  /** Where the rollout of the current render stands: the figures `convoy watch` and `status` print. */
  readonly progress: ProgressSummary;
  /** The one state of the Release (releaseState), as `convoy get` and the web UI show it. */
  readonly state: ReleaseState;
}

/** An inventory entry may carry fields newer than this build's schema, e.g. the deciding rule. */
type EntryIn = InventoryEntry & { readonly rule?: unknown };

function entryView(e: EntryIn): HealthEntryView {
  return definedFields({
    group: e.group,
    version: e.version,
    kind: e.kind,
    namespace: e.namespace,
    name: e.name,
    wave: e.wave ?? 0,
    state: e.state ?? 'Unknown',
    message: e.state === undefined ? 'not assessed yet' : (e.message ?? ''),
    renderRef: e.renderRef,
    assessedRenderRef: e.assessedRenderRef,
    firstUnhealthy: e.firstUnhealthy,
    rule: typeof e.rule === 'string' && e.rule !== '' ? e.rule : undefined,
  });
}

const byWaveThenKey = (a: HealthEntryView, b: HealthEntryView): number =>
  a.wave - b.wave ||
  a.group.localeCompare(b.group) ||
  a.kind.localeCompare(b.kind) ||
  a.namespace.localeCompare(b.namespace) ||
  a.name.localeCompare(b.name);

export function healthResult(release: Release, inventory: ReleaseInventory | undefined): HealthResult {
  const entries = (inventory?.entries ?? []).map((e) => entryView(e as EntryIn)).sort(byWaveThenKey);
  const hooks = (inventory?.hooks ?? []).map((h: InventoryHook) => definedFields({ ...h }) as HookView);
  const healthy = release.status?.conditions?.find((c) => c.type === 'Healthy');
  return definedFields({
    apiVersion: GROUP_VERSION,
    kind: RESPONSE_KINDS.health,
    metadata: metaOf(release),
    renderRef: release.status?.lastAttempted?.renderRef,
    healthy,
    summary: healthSummary(entries),
    entries,
    hooks,
    progress: progressSummary(release, inventory),
    state: releaseState(release),
  });
}

export interface HistoryEntryView {
  readonly renderRef: string;
  readonly revision: string;
  /** Unset for a render never applied: then attemptedAt says when its attempt failed. */
  readonly appliedAt?: string;
  readonly attemptedAt?: string;
  /** A complete copy is in the render store: it can be fetched, pinned or rolled back to. */
  readonly stored: boolean;
  /** How its rollout ended: Succeeded, Failed or RolledBack (status.history[].result). */
  readonly result?: string;
  readonly reason?: string;
  /** What made the controller attempt it, as recorded then; absent on entries written before triggers were. */
  readonly trigger?: AttemptTrigger;
  /** The trigger in words (triggerWords): "unknown (…)" when none was recorded. */
  readonly triggeredBy: string;
}

export interface StoredRenderView {
  readonly renderRef: string;
  readonly revision?: string;
  readonly storedAt?: string;
  readonly storedBytes: number;
  readonly complete: boolean;
  /** What still points at it: history, lastAttempted, lastSuccessful, lastHealthy, currentRender, pin. */
  readonly referencedBy: readonly string[];
}

/** The newest attempt, when it failed (Ready=False with a failure reason): what history shows first. */
export interface FailedAttemptView {
  /** The render it was about, when there was one (a source failure has none). */
  readonly renderRef?: string;
  readonly revision?: string;
  /** When Ready turned False. */
  readonly time?: string;
  readonly reason: string;
  readonly message?: string;
  /** What made the controller attempt it (status.lastAttempted's trigger), in words, when recorded. */
  readonly triggeredBy?: string;
}

export interface HistoryResult {
  readonly apiVersion: typeof GROUP_VERSION;
  readonly kind: typeof RESPONSE_KINDS.history;
  readonly metadata: Meta;
  /** status.history in the order the controller wrote it. */
  readonly history: readonly HistoryEntryView[];
  /** The newest attempt, when it failed (source, render, dry run, apply, hook, wave, prune). */
  readonly failedAttempt?: FailedAttemptView;
  /** Every render the store holds for the Release, newest first. */
  readonly stored: readonly StoredRenderView[];
}

function referencesOf(release: Release): Map<string, string[]> {
  const refs = new Map<string, string[]>();
  const add = (ref: string | undefined, by: string) => {
    if (ref === undefined || ref === '') return;
    const list = refs.get(ref) ?? [];
    if (!list.includes(by)) list.push(by);
    refs.set(ref, list);
  };
  const s = release.status;
  for (const h of s?.history ?? []) add(h.renderRef, 'history');
  add(s?.lastAttempted?.renderRef, 'lastAttempted');
  add(s?.lastSuccessful?.renderRef, 'lastSuccessful');
  add(s?.lastHealthy?.renderRef, 'lastHealthy');
  add(s?.currentRender?.renderRef, 'currentRender');
  add(release.spec.pin?.renderRef, 'pin');
  return refs;
}

export function historyResult(release: Release, stored: readonly StoredRenderMeta[]): HistoryResult {
  const complete = new Set(stored.filter((m) => m.complete).map((m) => m.renderRef));
  const refs = referencesOf(release);
  return {
    apiVersion: GROUP_VERSION,
    kind: RESPONSE_KINDS.history,
    metadata: metaOf(release),
    history: (release.status?.history ?? []).map((h) =>
      definedFields({
        renderRef: h.renderRef,
        revision: h.revision,
        appliedAt: h.appliedAt,
        attemptedAt: h.attemptedAt,
        stored: complete.has(h.renderRef),
        result: h.result,
        reason: h.reason,
        trigger: h.trigger,
        triggeredBy: triggerWords(h.trigger, h.revision),
      }),
    ),
    ...failedAttemptOf(release),
    stored: stored.map((m) =>
      definedFields({
        renderRef: m.renderRef,
        revision: m.revision,
        storedAt: m.storedAt,
        storedBytes: m.storedBytes,
        complete: m.complete,
        referencedBy: refs.get(m.renderRef) ?? [],
      }),
    ),
  };
}

/** Ready=False reasons that are a failed attempt (not waiting, progress, a gate or a pause). */
const FAILED_ATTEMPT_REASONS: ReadonlySet<string> = new Set<ReadyReason>([
  'SourceFailed',
  'SourceTimeout',
  'RenderFailed',
  'PinNotFound',
  'DryRunFailed',
  'PersistFailed',
  'ApplyFailed',
  'HookFailed',
  'WaveTimeout',
  'PruneFailed',
]);

function failedAttemptOf(release: Release): { failedAttempt?: FailedAttemptView } {
  const s = release.status;
  const ready = s?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'False' || !FAILED_ATTEMPT_REASONS.has(ready.reason)) return {};
  // Source and render failures have no render of their own: currentRender is the one before.
  const noRender = ['SourceFailed', 'SourceTimeout', 'RenderFailed'].includes(ready.reason);
  const render = noRender ? undefined : s?.currentRender;
  const attempt = s?.lastAttempted;
  // A render that failed before it applied has no lastAttempted of its own, but a history entry.
  const unapplied = s?.history?.findLast(
    (h) => h.renderRef === render?.renderRef && h.appliedAt === undefined,
  );
  const recorded =
    attempt?.renderRef === render?.renderRef && attempt !== undefined
      ? { trigger: attempt.trigger, revision: attempt.revision }
      : unapplied === undefined
        ? undefined
        : { trigger: unapplied.trigger, revision: unapplied.revision };
  return {
    failedAttempt: definedFields({
      renderRef: render?.renderRef,
      revision: render?.revision,
      time: ready.lastTransitionTime,
      reason: ready.reason,
      message: ready.message === '' ? undefined : ready.message,
      triggeredBy:
        recorded?.trigger === undefined ? undefined : triggerWords(recorded.trigger, recorded.revision),
    }),
  };
}

export interface RenderResult {
  readonly apiVersion: typeof GROUP_VERSION;
  readonly kind: typeof RESPONSE_KINDS.renders;
  readonly metadata: Meta;
  readonly renderRef: string;
  readonly hooks: Render['hooks'];
  readonly objects: Render['objects'];
}

/** Secret values masked unless showSecrets (the caller checked the user may get secrets). */
export function renderResult(
  release: Release,
  renderRef: string,
  render: Render,
  showSecrets = false,
): RenderResult {
  return {
    apiVersion: GROUP_VERSION,
    kind: RESPONSE_KINDS.renders,
    metadata: metaOf(release),
    renderRef,
    hooks: showSecrets ? render.hooks : render.hooks.map(maskSecret),
    objects: showSecrets ? render.objects : render.objects.map(maskSecret),
  };
}

function metaOf(release: Release): Meta {
  return { namespace: namespaceOf(release), name: nameOf(release) };
}
