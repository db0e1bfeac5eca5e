// The UI's actions on a Release — sync, forced sync, approve, pin, rollback, unpin, suspend, resume —
// as data: the request body a page may send, the permission each one needs, and what the page is told
// when it fails, a refused permission naming the verb and the resource that is missing. The writes
// themselves are the CLI's (the `convoy ui` command carries them out with the user's kubeconfig). Pure.
import { GROUP } from '../api/constants.ts';

export type UiAction =
  | { readonly kind: 'sync' }
  | { readonly kind: 'forceSync' }
  /** The render whose diff the person was shown: refused when the current render moved since. */
  | { readonly kind: 'approve'; readonly renderRef: string }
  | { readonly kind: 'pin'; readonly renderRef: string }
  | { readonly kind: 'rollback' }
  | { readonly kind: 'unpin' }
  | { readonly kind: 'suspend' }
  | { readonly kind: 'resume' };

export type ActionKind = UiAction['kind'];

export interface Permission {
  readonly verb: string;
  /** e.g. releases/sync */
  readonly resource: string;
  readonly group: string;
}

const API_GROUP = `api.${GROUP}`;
const SYNC: Permission = { verb: 'create', resource: 'releases/sync', group: API_GROUP };
const PATCH: Permission = { verb: 'patch', resource: 'releases', group: GROUP };

/** What the action needs through the convoy API (sync, approve) or on the Release itself (spec writes). */
export const PERMISSIONS: Readonly<Record<ActionKind, Permission>> = {
  sync: SYNC,
  forceSync: SYNC,
  approve: SYNC,
  pin: PATCH,
  rollback: PATCH,
  unpin: PATCH,
  suspend: PATCH,
  resume: PATCH,
};

const KINDS = Object.keys(PERMISSIONS) as ActionKind[];
const RENDER_REF = /^sha256:[0-9a-f]{64}$/;

export type Parsed =
  | { readonly ok: true; readonly action: UiAction }
  | { readonly ok: false; readonly message: string };

/** A page's request body: {"kind": …, "renderRef"?: …}; anything else is refused with the field named. */
export function parseAction(body: unknown): Parsed {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, message: 'body: must be a JSON object' };
  }
  const o = body as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k !== 'kind' && k !== 'renderRef') return { ok: false, message: `${k}: unknown field` };
  }
  const kind = o.kind;
  if (typeof kind !== 'string' || !KINDS.includes(kind as ActionKind)) {
    return { ok: false, message: `kind: must be one of ${KINDS.join(', ')}` };
  }
  if (kind === 'approve' || kind === 'pin') {
    if (typeof o.renderRef !== 'string' || !RENDER_REF.test(o.renderRef)) {
      return { ok: false, message: 'renderRef: must be sha256: followed by 64 hex digits' };
    }
    return { ok: true, action: { kind, renderRef: o.renderRef } };
  }
  if (o.renderRef !== undefined) return { ok: false, message: `renderRef: not taken by ${kind}` };
  return { ok: true, action: { kind } as UiAction };
}

export type Outcome =
  | { readonly kind: 'done'; readonly lines: readonly string[] }
  | {
      readonly kind: 'forbidden';
      readonly verb: string;
      readonly resource: string;
      readonly group: string;
      readonly namespace: string;
      /** The API server's (or convoy's) own words. */
      readonly message: string;
    }
  | { readonly kind: 'failed'; readonly message: string };

// kube-apiserver: User "u" cannot create resource "releases/sync" in API group "g" in the namespace "n"
const KUBE_DENIAL = /cannot (\w+) resource "([^"]+)" in API group "([^"]*)"/;
// convoy's API: user "u" cannot create releases/sync in namespace "n"
const CONVOY_DENIAL = /cannot (\w+) ([a-z]+(?:\/[a-z]+)?) in namespace/;

/** A 403 as the permission that is missing: the verb and resource the answer names, else the action's. */
export function forbidden(kind: ActionKind, namespace: string, message: string): Outcome {
  const k = KUBE_DENIAL.exec(message);
  if (k !== null) {
    return {
      kind: 'forbidden',
      verb: k[1] ?? '',
      resource: k[2] ?? '',
      group: k[3] ?? '',
      namespace,
      message,
    };
  }
  const p = PERMISSIONS[kind];
  const c = CONVOY_DENIAL.exec(message);
  return {
    kind: 'forbidden',
    verb: c?.[1] ?? p.verb,
    resource: c?.[2] ?? p.resource,
    group: p.group,
    namespace,
    message,
  };
}

/** The sentence a page shows for a refused permission. */
export function forbiddenText(o: Extract<Outcome, { kind: 'forbidden' }>): string {
  return `permission denied: you may not ${o.verb} ${o.resource}${o.group === '' ? '' : ` (API group ${o.group})`} in namespace ${o.namespace}`;
}
