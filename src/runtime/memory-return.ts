// Gives memory the process no longer uses back to the system. After a 50 MB render was dropped, the JS
// heap came back to its level but RSS stayed ~150 MiB higher, in two places: V8's pool of freed heap pages
// (kept for reuse, released only by a memory-reducing GC) and glibc's free lists (malloc returns only the
// top of each arena; HTTP bodies, pipe reads and zlib buffers are freed into the middle). A last-resort GC
// releases the first — through the gc function PROCESS_NODE_FLAGS exposes as RETURN_GC_NAME — and
// malloc_trim(0) the second, called through koffi (Node has no other way without compiling an addon).
// Where either is missing (no flag, no glibc) that half is skipped. docs/design.md#large-renders.
import type { Logger } from 'pino';
import { errorMessage } from '../lib/errors.ts';

const MIB = 1024 * 1024;
/** The global name of V8's gc function in convoy's processes (PROCESS_NODE_FLAGS: --expose-gc-as). */
export const RETURN_GC_NAME = '__convoyGc';
/** How often the process checks whether to return memory. */
export const RETURN_CHECK_MS = 5_000;
/** Growth of the memory outside the heap's spaces (over its lowest level since the last return) worth one. */
export const RETURN_GROWTH_BYTES = 32 * MIB;
/** The least time between two returns: a last-resort GC holds the event loop (~50 ms at 100 MiB of heap). */
export const RETURN_MIN_GAP_MS = 30_000;

/** One reading of process.memoryUsage(). */
export type MemorySample = { readonly rss: number; readonly heapTotal: number; readonly external: number };

/** Resident memory that is neither in V8's heap spaces nor its buffers: pooled pages, malloc's free lists, code. */
export function outsideHeap(m: MemorySample): number {
  return Math.max(0, m.rss - m.heapTotal - m.external);
}

/** What the checks remember between them. */
export type ReturnState = {
  /** The lowest outsideHeap since the last return. */
  readonly lowest: number;
  readonly lastReturnMs: number;
  /** Someone dropped something large (a render): its memory is garbage the growth rule cannot see. */
  readonly requested: boolean;
};

/**
 * What the check does now. Pure. `collect`: a last-resort GC, then malloc_trim — only on request, when
 * the large thing is already garbage and the live heap small (during a 50 MB render the GC's pause, over
 * all that was live, took /healthz past 1 s under the e2e suite's load). `trim`: malloc_trim alone, a
 * few milliseconds whatever the heap holds.
 */
export function returnDecision(
  now: MemorySample,
  state: ReturnState,
  nowMs: number,
): 'collect' | 'trim' | 'wait' {
  if (nowMs - state.lastReturnMs < RETURN_MIN_GAP_MS) return 'wait';
  if (state.requested) return 'collect';
  return outsideHeap(now) - state.lowest >= RETURN_GROWTH_BYTES ? 'trim' : 'wait';
}

type Release = () => void;

/** The last-resort GC exposed under RETURN_GC_NAME, or undefined when the process runs without the flag. */
function lastResortGc(): Release | undefined {
  const gc = (globalThis as Record<string, unknown>)[RETURN_GC_NAME];
  if (typeof gc !== 'function') return undefined;
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/** glibc's malloc_trim(0), or undefined where it cannot be called (no glibc, no koffi for this platform). */
async function mallocTrim(log: Logger): Promise<Release | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    const { default: koffi } = await import('koffi');
    const trim = koffi.load('libc.so.6').func('int malloc_trim(size_t)') as (pad: number) => number;
    return () => void trim(0);
  } catch (err) {
    log.info(
      { err: errorMessage(err) },
      'malloc_trim is not available: freed C memory stays with the process',
    );
    return undefined;
  }
}

export type MemoryReturned = { readonly bytes: number; readonly seconds: number };
export type MemoryReturner = {
  stop(): void;
  /**
   * Return memory at the next check the gap allows: a large value just became garbage. It sits in the
   * heap until a major GC, so the growth outside the heap says nothing of it.
   */
  request(): void;
};

/**
 * Checks every RETURN_CHECK_MS and returns memory when returnDecision says so; `onReturn` gets the RSS
 * given back and the time the event loop was held. The timer does not keep the process alive.
 */
export async function startMemoryReturn(
  log: Logger,
  onReturn: (r: MemoryReturned) => void,
): Promise<MemoryReturner> {
  const gc = lastResortGc();
  const trim = await mallocTrim(log);
  if (gc === undefined && trim === undefined) return { stop() {}, request() {} };
  let state: ReturnState = { lowest: outsideHeap(process.memoryUsage()), lastReturnMs: 0, requested: false };
  const timer = setInterval(() => {
    const before = process.memoryUsage();
    const nowMs = Date.now();
    const decision = returnDecision(before, state, nowMs);
    if (decision === 'wait') {
      state = { ...state, lowest: Math.min(state.lowest, outsideHeap(before)) };
      return;
    }
    const start = performance.now();
    if (decision === 'collect') gc?.();
    trim?.();
    const seconds = (performance.now() - start) / 1000;
    const after = process.memoryUsage();
    state = { lowest: outsideHeap(after), lastReturnMs: nowMs, requested: false };
    const bytes = Math.max(0, before.rss - after.rss);
    onReturn({ bytes, seconds });
    log.debug(
      { returnedMiB: Math.round(bytes / MIB), rssMiB: Math.round(after.rss / MIB), seconds },
      'memory returned',
    );
  }, RETURN_CHECK_MS);
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    request: () => {
      state = { ...state, requested: true };
    },
  };
}
