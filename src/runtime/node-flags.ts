// The Node flags convoy's long-running processes (controller-manager, observer) run with, wherever they
// are started: the deploy manifests, the image, `convoy dev` and the tests' child processes. Node 24
// sizes the young generation from the machine's memory (up to 3 × 64 MiB here): the processes' peak
// RSS was ~400 MiB at 1,000 Releases with a ~75 MiB live heap. 8 MiB semi-spaces took it to ~275 MiB
// at 300 Releases for no measurable CPU (npm run bench:floor, CONVOY_BENCH_NODE_OPTIONS; capping the
// old space as well halved RSS again but doubled the time: garbage collection thrashed). The old
// generation then grew to ~3 × its ~46 MiB live heap between major collections (V8 picks the factor,
// up to 4): peak RSS 184–270 MiB. --heap-growing-percent=50 fixes the factor at 1.5, a limit that
// follows the live heap (unlike a fixed cap, which would stop a larger installation): 175–182 MiB over
// three runs for no measurable CPU. A V8 flag: a Node upgrade that drops it fails every process start,
// in the tests first. docs/design.md#processes.
// --expose-gc-as gives src/runtime/memory-return.ts the last-resort GC that releases V8's pooled pages.
export const PROCESS_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=8',
  '--heap-growing-percent=50',
  '--expose-gc-as=__convoyGc',
];
