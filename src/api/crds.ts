// The nine CustomResourceDefinitions, built from the TypeBox schemas in ./schema (the one source of
// truth). generate.ts writes them to deploy/crds; crds.test.ts fails when the committed YAML drifts.
import { GROUP, RESOURCES, VERSION } from './constants.ts';
import { ClusterSpecSchema, ClusterStatusSchema } from './schema/cluster.ts';
import { HealthRuleSetSpecSchema } from './schema/healthruleset.ts';
import { InventoryBodySchema } from './schema/inventory.ts';
import {
  AlertSpecSchema,
  AlertStatusSchema,
  ProviderSpecSchema,
  ProviderStatusSchema,
  ReceiverSpecSchema,
  ReceiverStatusSchema,
} from './schema/notification.ts';
import { ReleaseSpecSchema, ReleaseStatusSchema } from './schema/release.ts';
import { ReleaseSetSpecSchema, ReleaseSetStatusSchema } from './schema/releaseset.ts';
import { type JsonSchema, toStructural } from './structural.ts';

interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date' | 'boolean' | 'number';
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
}

interface CrdInput {
  readonly kind: keyof typeof RESOURCES;
  readonly shortNames: readonly string[];
  readonly description: string;
  /** Top-level properties beside apiVersion, kind, metadata. */
  readonly body: Record<string, unknown>;
  readonly required: readonly string[];
  readonly statusSubresource: boolean;
  readonly columns: readonly PrinterColumn[];
}

const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

function condition(type: string): string {
  return `.status.conditions[?(@.type=="${type}")].status`;
}

/** A string column; priority 1 shows only under -o wide. */
function column(name: string, jsonPath: string, priority?: 1): PrinterColumn {
  return { name, type: 'string', jsonPath, ...(priority === undefined ? {} : { priority }) };
}

/** The status of the condition `type`, under its own name. */
function conditionColumn(type: string): PrinterColumn {
  return column(type, condition(type));
}

const INPUTS: readonly CrdInput[] = [
  {
    kind: 'Release',
    shortNames: ['rel'],
    description:
      'A source rendered into Kubernetes objects and applied to a cluster with a progressive rollout.',
    body: { spec: ReleaseSpecSchema, status: ReleaseStatusSchema },
    required: ['spec'],
    statusSubresource: true,
    columns: [
      conditionColumn('Ready'),
      conditionColumn('Healthy'),
      column('Rollout', '.status.rollout.state'),
      column('Revision', '.status.revision'),
      AGE,
      column('Message', '.status.message'),
      column('Cluster', '.spec.cluster.name', 1),
      column('Render', '.status.currentRender.renderRef', 1),
    ],
  },
  {
    kind: 'ReleaseInventory',
    shortNames: ['relinv'],
    description: 'The objects and hooks convoy applied for the Release of the same name, and their health.',
    body: (InventoryBodySchema as unknown as { properties: Record<string, unknown> }).properties,
    required: [],
    statusSubresource: false,
    columns: [AGE],
  },
  {
    kind: 'Cluster',
    shortNames: ['ccl'],
    description: 'A target cluster for Releases of its namespace.',
    body: { spec: ClusterSpecSchema, status: ClusterStatusSchema },
    required: ['spec'],
    statusSubresource: true,
    columns: [
      conditionColumn('Ready'),
      column('Version', '.status.serverVersion'),
      { name: 'Shard', type: 'integer', jsonPath: '.spec.shard' },
      { name: 'Wave', type: 'integer', jsonPath: '.spec.wave' },
      AGE,
    ],
  },
  {
    kind: 'HealthRuleSet',
    shortNames: ['hrs'],
    description: 'Health rules for the Releases of its namespace that select it.',
    body: { spec: HealthRuleSetSpecSchema },
    required: ['spec'],
    statusSubresource: false,
    columns: [AGE],
  },
  {
    kind: 'GlobalHealthRuleSet',
    shortNames: ['ghrs'],
    description: 'Health rules for every Release that selects it.',
    body: { spec: HealthRuleSetSpecSchema },
    required: ['spec'],
    statusSubresource: false,
    columns: [AGE],
  },
  {
    kind: 'Provider',
    shortNames: ['cprov'],
    description:
      'Where notifications go: a webhook, a Slack-compatible webhook, GitHub or GitLab commit statuses.',
    body: { spec: ProviderSpecSchema, status: ProviderStatusSchema },
    required: ['spec'],
    statusSubresource: true,
    columns: [
      column('Type', '.spec.type'),
      conditionColumn('Ready'),
      AGE,
      column('Message', `.status.conditions[?(@.type=="Ready")].message`),
    ],
  },
  {
    kind: 'Alert',
    shortNames: ['calert'],
    description: 'Which Releases and rollout events of its namespace are sent to a Provider.',
    body: { spec: AlertSpecSchema, status: AlertStatusSchema },
    required: ['spec'],
    statusSubresource: true,
    columns: [
      column('Provider', '.spec.providerRef.name'),
      column('Severity', '.spec.severity'),
      conditionColumn('Ready'),
      AGE,
    ],
  },
  {
    kind: 'Receiver',
    shortNames: ['crcv'],
    description:
      'A push webhook (GitHub, GitLab, generic) that requests a sync of the Releases following the pushed branch.',
    body: { spec: ReceiverSpecSchema, status: ReceiverStatusSchema },
    required: ['spec'],
    statusSubresource: true,
    columns: [
      column('Type', '.spec.type'),
      conditionColumn('Ready'),
      column('Path', '.status.webhookPath'),
      AGE,
    ],
  },
  {
    kind: 'ReleaseSet',
    shortNames: ['rset'],
    description:
      'One Release template rolled out to many Clusters in waves gated on health, with a fleet-wide rollback.',
    body: { spec: ReleaseSetSpecSchema, status: ReleaseSetStatusSchema },
    required: ['spec'],
    statusSubresource: true,
    columns: [
      column('Revision', '.status.revision'),
      column('Train', '.status.train.state'),
      { name: 'Wave', type: 'integer', jsonPath: '.status.train.wave' },
      column('Ready', '.status.summary.ready'),
      column('Good', '.status.good.revision'),
      AGE,
      column('Message', '.status.message'),
      column('Failed', '.status.train.failedCluster', 1),
    ],
  },
];

/** A CustomResourceDefinition as plain JSON. */
export interface CrdObject {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: Record<string, unknown>;
}

function buildCrd(input: CrdInput): CrdObject {
  const names = RESOURCES[input.kind];
  const openAPIV3Schema: JsonSchema = toStructural(
    {
      type: 'object',
      description: input.description,
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object' },
        ...input.body,
      },
      ...(input.required.length > 0 ? { required: [...input.required] } : {}),
    },
    input.kind,
  );
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: input.kind,
        listKind: names.listKind,
        plural: names.plural,
        singular: names.singular,
        shortNames: [...input.shortNames],
        categories: ['convoy'],
      },
      scope: names.namespaced ? 'Namespaced' : 'Cluster',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema },
          ...(input.statusSubresource ? { subresources: { status: {} } } : {}),
          additionalPrinterColumns: input.columns.map((c) => ({ ...c })),
        },
      ],
    },
  };
}

/** Every CRD, in a stable order. */
export function buildCrds(): CrdObject[] {
  return INPUTS.map(buildCrd);
}

/** File name under deploy/crds for a CRD. */
export function crdFileName(crd: CrdObject): string {
  return `${crd.metadata.name}.yaml`;
}

let memo: Map<string, JsonSchema> | undefined;

/** The openAPIV3Schema of a convoy kind (for SSA field sets), or undefined for other kinds. */
export function openApiSchemaOf(kind: string): JsonSchema | undefined {
  memo ??= new Map(
    buildCrds().map((crd) => {
      const spec = crd.spec as {
        names: { kind: string };
        versions: { schema: { openAPIV3Schema: JsonSchema } }[];
      };
      return [spec.names.kind, spec.versions[0]?.schema.openAPIV3Schema ?? {}];
    }),
  );
  return memo.get(kind);
}

/** The schema of `.status` of a convoy kind, or undefined. */
export function statusSchemaOf(kind: string): JsonSchema | undefined {
  return (openApiSchemaOf(kind)?.properties as Record<string, JsonSchema> | undefined)?.status;
}
