// ReleaseInventory: the objects and hooks convoy applied for one Release, written by several SSA field
// managers at once (docs/design.md#field-ownership). The list-map keys let each manager own its own fields of
// an entry.
import { type Static, Type } from 'typebox';
import { HOOK_PHASES } from '../constants.ts';
import { Duration, ListMap, RenderRef, StringEnum, Time } from './k8s.ts';
import { VerificationStatusSchema } from './verification.ts';

export const ENTRY_STATES = ['Healthy', 'Progressing', 'Degraded', 'Unknown'] as const;
export const HOOK_STATES = ['Running', 'Succeeded', 'Failed'] as const;

/**
 * Only the keys are required: when the controller drops an entry whose health fields another manager
 * still owns, the apiserver keeps the entry with just the keys and those fields (see src/kube/inventory.ts).
 */
export const InventoryEntrySchema = Type.Object({
  // keys (controller): "" for the core group and for cluster-scoped objects
  group: Type.String({ maxLength: 253, description: 'API group; "" for the core group.' }),
  kind: Type.String({ minLength: 1, maxLength: 63 }),
  namespace: Type.String({ maxLength: 63, description: '"" for cluster-scoped objects.' }),
  name: Type.String({ minLength: 1, maxLength: 253 }),
  // convoy-controller
  version: Type.Optional(Type.String({ maxLength: 63 })),
  wave: Type.Optional(Type.Integer({ format: 'int32' })),
  renderRef: Type.Optional(RenderRef({ description: 'The render that last applied this object.' })),
  appliedResourceVersion: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        "The object's resourceVersion the first apply of renderRef returned: a watch cache holding this version or a newer one is fresh for the render.",
    }),
  ),
  // convoy-health-inventory
  state: Type.Optional(StringEnum(ENTRY_STATES)),
  message: Type.Optional(Type.String({ maxLength: 4096 })),
  firstUnhealthy: Type.Optional(Time({ description: 'Since when the object has failed its rules.' })),
  assessedRenderRef: Type.Optional(RenderRef({ description: 'The renderRef the state was assessed for.' })),
  rule: Type.Optional(
    Type.String({
      maxLength: 512,
      description: 'The health rule that decided the state (<ruleSet>/<rule>).',
    }),
  ),
  // convoy-drift
  drifted: Type.Optional(Type.Boolean()),
  driftMessage: Type.Optional(Type.String({ maxLength: 4096 })),
});
export type InventoryEntry = Static<typeof InventoryEntrySchema>;
export type EntryState = (typeof ENTRY_STATES)[number];

export const InventoryHookSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 253, description: 'Name of the hook object in the render.' }),
  // convoy-controller
  phase: Type.Optional(StringEnum(HOOK_PHASES)),
  kind: Type.Optional(StringEnum(['Job', 'Pod'])),
  renderRef: Type.Optional(RenderRef()),
  workloadName: Type.Optional(Type.String({ maxLength: 253, description: 'The Job or Pod created for it.' })),
  namespace: Type.Optional(
    Type.String({ maxLength: 63, description: 'Namespace of the workload in the target cluster.' }),
  ),
  createdAt: Type.Optional(Time()),
  timeout: Type.Optional(Duration()),
  // convoy-hook-status
  state: Type.Optional(StringEnum(HOOK_STATES)),
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
  message: Type.Optional(Type.String({ maxLength: 4096 })),
  finishedAt: Type.Optional(Time()),
});
export type InventoryHook = Static<typeof InventoryHookSchema>;
export type HookState = (typeof HOOK_STATES)[number];

/**
 * An object the controller is about to apply (or applied and could not record yet): written before a
 * wave's apply and settled after it, so a crash or a failure in between never leaves a live object no
 * inventory names. Only convoy-controller writes it; the observer never assesses it.
 */
export const PendingEntrySchema = Type.Object({
  group: Type.String({ maxLength: 253 }),
  kind: Type.String({ minLength: 1, maxLength: 63 }),
  namespace: Type.String({ maxLength: 63 }),
  name: Type.String({ minLength: 1, maxLength: 253 }),
  version: Type.Optional(Type.String({ maxLength: 63 })),
  wave: Type.Optional(Type.Integer({ format: 'int32' })),
  renderRef: Type.Optional(RenderRef({ description: 'The render being applied.' })),
});
export type PendingEntry = Static<typeof PendingEntrySchema>;

/** Top-level fields of a ReleaseInventory (beside apiVersion, kind, metadata). */
export const InventoryBodySchema = Type.Object({
  entries: Type.Optional(
    ListMap(InventoryEntrySchema, ['group', 'kind', 'namespace', 'name'], {
      maxItems: 10000,
      description: 'Objects convoy applied for the Release.',
    }),
  ),
  pending: Type.Optional(
    ListMap(PendingEntrySchema, ['group', 'kind', 'namespace', 'name'], {
      maxItems: 10000,
      description:
        'Objects of a wave being applied and not yet recorded in entries (convoy-controller only; not assessed).',
    }),
  ),
  hooks: Type.Optional(
    ListMap(InventoryHookSchema, ['name'], {
      maxItems: 256,
      description: 'Lifecycle hooks armed for the Release.',
    }),
  ),
  verification: Type.Optional(VerificationStatusSchema),
});
export type InventoryBody = Static<typeof InventoryBodySchema>;
