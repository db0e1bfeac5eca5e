// Builds the CLI bundle bin/convoy runs, so a command starts without Node stripping the types of
// dozens of .ts files and loading libraries file by file (help and get: ~0.1 CPU-s instead of ~0.4):
// - convoy.mjs, one file: src/cmd/convoy.ts with main.ts, help and the fast reads (get, status, health,
//   history) and all they import. One file, because resolving and linking each ES module of a split
//   bundle cost `convoy get` about a fifth of its CPU time (npm run bench:cli; docs/cli.md);
// - run.mjs and its chunks (one per lazily imported command): src/cli/run.ts, every other command,
//   which main.ts imports only for those; and client-node.mjs, which kubeconfigs LiteKubeConfig cannot
//   serve load. convoy.mjs names both as external modules, so nothing it does not run is in it.
// Run by `npm ci` (the prepare script) and `npm run build:cli`; the bundle runs the sources instead
// when one it was built from changed since (bundled.ts, by the inputs.json written here).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';
import { type BundleInputs, INPUTS_FILE } from './bundled.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** In the checkout, not node_modules: each git worktree (which may share node_modules) has its own. */
export const BUNDLE_DIR = `${ROOT}.convoy/cli`;

/**
 * Modules find files beside them with `new URL('x', import.meta.url)` (the default rules, the deploy
 * and examples folders). In a chunk, import.meta.url is the chunk's: point it back at the source file,
 * relative to the bundle's directory `outDir` so the repository may move.
 */
export function sourceUrls(outDir: string): Plugin {
  return {
    name: 'source-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\/src\/.*\.ts$/ }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return { contents: text, loader: 'ts' };
        const rel = relative(outDir, args.path).split('\\').join('/');
        return {
          contents: text.replaceAll(
            'import.meta.url',
            `new URL(${JSON.stringify(rel)}, import.meta.url).href`,
          ),
          loader: 'ts',
        };
      });
    },
  };
}

/**
 * `import … from 'node:http'` in ESM builds the module's namespace, which reads every export — and
 * node:http's lazy WebSocket/undici getters then load http2, undici, worker_threads and perf_hooks
 * (~0.1 CPU-s for `convoy get`). Builtins are taken with process.getBuiltinModule instead, as
 * CommonJS objects whose members esbuild reads only where the code uses them.
 */
export const lazyBuiltins: Plugin = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: 'builtin' }));
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: builtinShim(args.path),
      loader: 'js',
    }));
  },
};

/**
 * Builtins Node has loaded before any user code runs: taking them at once costs nothing. Not node:util:
 * loaded, but esbuild's ESM interop reads every member of a CommonJS object, and util's lazy ones
 * (TextDecoder, diff, …) then load encoding, worker_threads and assert's diff (~5 ms of `convoy get`).
 */
const PRELOADED = new Set(['node:fs', 'node:path', 'node:url', 'node:buffer']);

/**
 * A builtin as a CommonJS object. A plain-object module (node:crypto, node:zlib, node:readline, …) is
 * loaded on the first use of one of its members, not when a chunk importing it is evaluated: `convoy
 * get` imports the render store, whose gzip and hashing it never calls. The member names are this
 * Node's (the build runs on the Node that runs the bundle). Function modules (events, stream) and
 * the process object are taken as they are.
 */
function builtinShim(name: string): string {
  const id = JSON.stringify(name);
  const m: unknown = process.getBuiltinModule(name);
  if (
    PRELOADED.has(name) ||
    typeof m !== 'object' ||
    m === null ||
    Object.getPrototypeOf(m) !== Object.prototype
  )
    return `module.exports = process.getBuiltinModule(${id});`;
  const props = Object.keys(m)
    .map((k) => {
      const key = JSON.stringify(k);
      return `${key}: { enumerable: true, get: () => load()[${key}], set: (v) => { load()[${key}] = v; } }`;
    })
    .join(',\n  ');
  return `let m;\nconst load = () => (m ??= process.getBuiltinModule(${id}));\nmodule.exports = Object.defineProperties({}, {\n  ${props}\n});`;
}

/**
 * yaml's Node entry is CommonJS, which esbuild must keep whole and wrap; its ESM build (the package's
 * `default` export) is the same code as modules, so only what convoy uses is bundled and evaluated.
 */
export const yamlEsm: Plugin = {
  name: 'yaml-esm',
  setup(b) {
    b.onResolve({ filter: /^yaml$/ }, () => ({ path: `${ROOT}node_modules/yaml/browser/index.js` }));
  },
};

/** What convoy.mjs imports from the chunks instead of bundling: module → the chunks' entry. */
const CHUNK_ENTRIES = {
  run: { from: 'src/cli/main.ts', module: './run.ts', entry: `${ROOT}src/cli/run.ts` },
  'client-node': {
    from: 'src/cli/kubeconfig.ts',
    module: '@kubernetes/client-node',
    entry: '@kubernetes/client-node',
  },
} as const;

/** In convoy.mjs, the CHUNK_ENTRIES modules are imports of the chunks' entries; any other importer fails. */
const toChunkEntries: Plugin = {
  name: 'to-chunk-entries',
  setup(b) {
    for (const [name, e] of Object.entries(CHUNK_ENTRIES)) {
      const filter = new RegExp(`^${e.module.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
      b.onResolve({ filter }, (args) => {
        if (
          relative(ROOT, args.importer).split('\\').join('/') !== e.from ||
          args.kind !== 'dynamic-import'
        ) {
          return { errors: [{ text: `${e.module} is for ${e.from} to import dynamically (bundle.ts)` }] };
        }
        return { path: `./${name}.mjs`, external: true };
      });
    }
  },
};

export const common = {
  absWorkingDir: ROOT,
  metafile: true,
  bundle: true,
  // .mjs: Node knows the format without reading a package.json or parsing the file to detect it.
  outExtension: { '.js': '.mjs' },
  format: 'esm',
  platform: 'node',
  target: 'node22',
  logLevel: 'warning',
  // A handful of characters outside Latin-1 (’ — →) made V8 hold the whole source of a bundle as a
  // two-byte string: 9 MiB of each process's heap for its 4.7 MB file. Escaped, it is one byte a character
  // (docs/design.md#process-bundles).
  charset: 'ascii',
  // koffi loads a native addon built for this platform from its own package: it stays in node_modules
  // (src/runtime/memory-return.ts).
  external: ['koffi'] as string[],
  // CommonJS dependencies call require(); ESM chunks have none of their own.
  banner: {
    js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);",
  },
} as const;

export async function bundleCli(): Promise<void> {
  const builtAt = Date.now();
  await rm(BUNDLE_DIR, { recursive: true, force: true });
  await mkdir(dirname(BUNDLE_DIR), { recursive: true });
  const [fast, chunks] = await Promise.all([
    build({
      ...common,
      // convoy-bundled.ts runs the bundled src/cmd/convoy.ts, or the sources when one changed since this build
      entryPoints: { convoy: `${ROOT}src/cmd/convoy-bundled.ts` },
      // main.ts's own dynamic imports (context, read) are in the file too, evaluated when first imported
      splitting: false,
      outdir: BUNDLE_DIR,
      plugins: [toChunkEntries, lazyBuiltins, yamlEsm, sourceUrls(BUNDLE_DIR)],
    }),
    build({
      ...common,
      entryPoints: Object.fromEntries(Object.entries(CHUNK_ENTRIES).map(([name, e]) => [name, e.entry])),
      splitting: true,
      outdir: BUNDLE_DIR,
      plugins: [lazyBuiltins, yamlEsm, sourceUrls(BUNDLE_DIR)],
    }),
  ]);
  await recordInputs(INPUTS_FILE, builtAt, [fast, chunks]);
}

/**
 * Writes `file` (under the root): the build's start and the sources its `results` read, which
 * staleBecause compares with the checkout (node_modules changes only with npm ci, which builds again).
 */
export async function recordInputs(
  file: string,
  builtAt: number,
  results: readonly { readonly metafile: Metafile }[],
): Promise<void> {
  const inputs: BundleInputs = {
    builtAt,
    inputs: [
      ...new Set(results.flatMap((r) => Object.keys(r.metafile.inputs).filter((p) => p.startsWith('src/')))),
    ],
  };
  await writeFile(`${ROOT}${file}`, `${JSON.stringify(inputs)}\n`);
}

/** Runs a build from the command line and says where it went and how long it took. */
export async function buildFromCli(what: string, dir: string, run: () => Promise<void>): Promise<void> {
  const started = Date.now();
  await run();
  const s = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(`${what}: ${pathToFileURL(dir).pathname} (${s} s)\n`);
}

if (import.meta.main) await buildFromCli('convoy CLI bundle', BUNDLE_DIR, bundleCli);
