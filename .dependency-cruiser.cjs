// The layers of src/ and the arrows allowed between them (docs/design.md#layers): an import may only point
// down, never up and never sideways between the two processes, and no module may reach itself again.
// Checked by src/layers.test.ts (part of `npm test`); `npm run lint:deps` prints the same findings.
// Test files are not checked: a test may use what sits above the code it tests (a rules test runs the
// evaluator). Lowest first; each layer may import only the layers before it in this list.
/** @type {(readonly [string, readonly string[]])[]} */
const LAYERS = [
  ['lib', []],
  // The project's bounded CEL (cost meter, CPU-time limit, static checks), over one declared variable.
  ['cel', ['lib']],
  ['api', ['lib']],
  // Custom resources checked against a CRD of their render before anything is applied (bounded CEL).
  ['crdschema', ['lib', 'cel']],
  ['kube', ['lib', 'api']],
  // The harness knows nothing of Releases: no src/api.
  ['runtime', ['lib', 'kube']],
  ['render', ['lib', 'api', 'kube']],
  ['store', ['lib', 'api', 'kube', 'render']],
  ['rules', ['lib', 'cel', 'api']],
  // Verification: the checks' providers (Prometheus, web) and their pure decisions (docs/design.md#verification).
  ['verify', ['lib', 'cel', 'api', 'kube', 'rules']],
  // Reading Argo CD Applications and Flux objects into Releases (convoy import): pure conversions.
  ['import', ['lib', 'api', 'render']],
  // Test and dev infrastructure: the local control plane and the tool binaries.
  ['testenv', ['lib', 'api', 'kube', 'render']],
  ['controller', ['lib', 'api', 'crdschema', 'kube', 'runtime', 'render', 'store', 'rules']],
  ['observer', ['lib', 'cel', 'api', 'kube', 'runtime', 'render', 'store', 'rules', 'verify']],
  ['server', ['lib', 'api', 'kube', 'runtime', 'render', 'store']],
  ['notify', ['lib', 'api', 'kube', 'runtime', 'render', 'store']],
  // The web UI's server: the API's pure views (one progress summary), the CLI's writes injected.
  ['ui', ['lib', 'api', 'kube', 'runtime', 'render', 'store', 'server']],
  [
    'cli',
    [
      'lib',
      'cel',
      'api',
      'crdschema',
      'kube',
      'runtime',
      'render',
      'store',
      'rules',
      'verify',
      'import',
      'testenv',
      'controller',
      'observer',
      'server',
      'ui',
    ],
  ],
];
// The entry points (src/cmd) start the processes and the CLI: they may import every layer.
LAYERS.push(['cmd', LAYERS.map(([name]) => name)]);
const FOLDERS = LAYERS.map(([name]) => name);

/**
 * Arrows that break the layers today and are allowed until the file on the other side can be changed
 * (it belongs to work in flight elsewhere). Each names its way out; remove the entry with the fix.
 */
const PENDING = [];

/** The folders `name` may not import: every other folder of the list that it does not name. */
const above = (name) => {
  const allowed = LAYERS.find(([n]) => n === name)?.[1] ?? [];
  return FOLDERS.filter((f) => f !== name && !allowed.includes(f));
};

const layerRules = LAYERS.map(([name, allowed]) => ({
  name: `layer-${name}`,
  comment: `src/${name} may import only ${allowed.length === 0 ? 'outside src/' : allowed.map((a) => `src/${a}`).join(', ')} (docs/design.md#layers)`,
  severity: 'error',
  from: { path: `^src/${name}/`, pathNot: PENDING.map((p) => p.from) },
  to: { path: `^src/(${above(name).join('|')})/` },
}));

const pendingRules = PENDING.map((p) => ({
  name: `layer-${p.layer}-pending`,
  comment: `a pending exception allows ${p.from} -> ${p.to} only (see PENDING in .dependency-cruiser.cjs)`,
  severity: 'error',
  from: { path: p.from },
  to: { path: `^src/(${above(p.layer).join('|')})/`, pathNot: p.to },
}));

/**
 * What the pure decisions of the release controller may not import: the API clients, the harness, the
 * controller's actions and process wiring, its dependency bag (clients and caches) and Node's I/O modules.
 */
const DECIDE_MAY_NOT_IMPORT = [
  '^src/(kube|runtime)/',
  '^src/controller/release/(act|watch)/',
  '^src/controller/release/deps[.]ts$',
  '^(node:)?(fs|fs/promises|child_process|net|http|https|http2|dgram|worker_threads)$',
];

module.exports = {
  forbidden: [
    ...layerRules,
    ...pendingRules,
    {
      name: 'decide-is-pure',
      comment:
        'src/controller/release/decide holds the pure decisions of a reconcile: no Kubernetes client, no harness, no action (docs/design.md#reading-one-reconcile)',
      severity: 'error',
      from: { path: '^src/controller/release/decide/' },
      to: { path: DECIDE_MAY_NOT_IMPORT },
    },
    {
      name: 'no-circular',
      comment: 'a module that imports itself again through others (docs/design.md#layers)',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '\\.test\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Only the import graph matters: skip the parsing of node_modules' package.json files.
    skipAnalysisNotInRules: true,
  },
};
