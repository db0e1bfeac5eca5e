// The edge of certificate rotation: polls the serving certificate and key files and re-reads
// kube-system/extension-apiserver-authentication, logs and counts what reload.ts and trust.ts decide,
// and hands what is to be served or trusted to the server. The files are polled by content rather than
// watched: a Secret volume swaps its `..data` symlink, which an fs.watch on the file never reports,
// inotify watches run out, and reading two small files every few seconds costs nothing.
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { KubeClient } from '../kube/client.ts';
import { assertNever } from '../lib/assert-never.ts';
import { errorMessage } from '../lib/errors.ts';
import type { RequestHeaderConfig } from './credentials.ts';
import type { ApiMetrics } from './metrics.ts';
import {
  afterDecision,
  decideReload,
  type Observed,
  type ReloadState,
  type ServingFiles,
  type ServingPair,
} from './reload.ts';
import { AUTH_CONFIGMAP, readRequestHeaderConfigMap } from './requestheader.ts';
import { afterTrustDecision, decideTrust, type Trust, type TrustState } from './trust.ts';

export const DEFAULT_CERT_POLL_MS = 5000;
export const DEFAULT_REQUESTHEADER_POLL_MS = 10_000;

export interface Poller {
  stop(): Promise<void>;
}

/** Runs `tick` every `intervalMs` (the first one now when `immediate`) until stopped; never two at once. */
function poll(
  intervalMs: number,
  immediate: boolean,
  tick: () => Promise<void>,
  onError: (err: unknown) => void,
): Poller {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const schedule = (ms: number) => {
    timer = setTimeout(() => {
      // A tick that throws must not end the polling (nor the process, as an unhandled rejection).
      running = tick()
        .catch(onError)
        .finally(() => {
          if (!stopped) schedule(intervalMs);
        });
    }, ms);
    // The pollers must not keep a process alive that has nothing else to do.
    timer.unref();
  };
  schedule(immediate ? 0 : intervalMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/**
 * Reads both files, then the certificate again: a rotation landing between the two reads would
 * otherwise pair the new certificate with the old key and be refused as a mismatch. undefined: the
 * files moved under the read; the next poll sees them settled.
 */
async function readPair(files: ServingFiles): Promise<Observed | undefined> {
  const read = async (file: string): Promise<string | Observed> => {
    try {
      return await readFile(file, 'utf8');
    } catch (err) {
      return { kind: 'unreadable', file, message: errorMessage(err) };
    }
  };
  const cert = await read(files.certFile);
  if (typeof cert !== 'string') return cert;
  const key = await read(files.keyFile);
  if (typeof key !== 'string') return key;
  return (await read(files.certFile)) === cert ? { kind: 'read', pair: { cert, key } } : undefined;
}

export interface ServingWatchDeps {
  readonly intervalMs: number;
  readonly log: Logger | undefined;
  readonly metrics: ApiMetrics | undefined;
  /** Installs the pair for new connections; may throw (then the old pair stays, as for a refused one). */
  readonly apply: (pair: ServingPair) => void;
}

export function watchServingFiles(
  files: ServingFiles,
  initial: ServingPair & { readonly fingerprint256: string },
  deps: ServingWatchDeps,
): Poller {
  let state: ReloadState = { served: initial };
  let fingerprint = initial.fingerprint256;
  const refused = (observed: Observed, file: string, reason: string) => {
    state = { served: state.served, refused: observed };
    deps.metrics?.reloads.inc({ source: 'serving', result: 'refused' });
    deps.log?.warn(
      { file, reason, certFile: files.certFile, keyFile: files.keyFile, servingSha256: fingerprint },
      `serving certificate not reloaded: ${file}: ${reason}; still serving the previous certificate, retried when the files change`,
    );
  };
  return poll(
    deps.intervalMs,
    false,
    async () => {
      const observed = await readPair(files);
      if (observed === undefined) return;
      const decision = decideReload(state, observed, files);
      switch (decision.kind) {
        case 'unchanged':
        case 'stillRefused':
          state = afterDecision(state, observed, decision);
          return;
        case 'refuse':
          refused(observed, decision.file, decision.reason);
          return;
        case 'reload':
          try {
            deps.apply(decision.pair);
          } catch (err) {
            refused(observed, files.certFile, `installing it failed: ${errorMessage(err)}`);
            return;
          }
          state = afterDecision(state, observed, decision);
          deps.metrics?.reloads.inc({ source: 'serving', result: 'applied' });
          deps.log?.info(
            {
              certFile: files.certFile,
              fingerprint256: decision.fingerprint256,
              previousFingerprint256: fingerprint,
              validTo: decision.validTo,
            },
            'serving certificate reloaded',
          );
          fingerprint = decision.fingerprint256;
          return;
        default:
          assertNever(decision);
      }
    },
    (err) => deps.log?.error({ err: String(err) }, 'checking the serving certificate files failed'),
  );
}

export interface TrustWatchDeps {
  readonly intervalMs: number;
  readonly log: Logger | undefined;
  readonly metrics: ApiMetrics | undefined;
  /** Installs the trust for new connections and requests; may throw (then the old trust stays). */
  readonly apply: (trust: Trust | undefined) => void;
}

const WHERE = `${AUTH_CONFIGMAP.namespace}/${AUTH_CONFIGMAP.name}`;

/** Follows the cluster's front-proxy settings; the first read is immediate when nothing is trusted yet. */
export function watchRequestHeader(
  client: KubeClient,
  initial: RequestHeaderConfig | undefined,
  deps: TrustWatchDeps,
): Poller {
  let state: TrustState = { current: initial };
  const kept = (problem: string) => {
    state = { current: state.current, problem };
    deps.metrics?.reloads.inc({ source: 'requestheader', result: 'refused' });
    deps.log?.warn(
      {
        problem,
        trusting: state.current === undefined ? 'no front proxy' : 'the previous front-proxy settings',
      },
      `front-proxy settings in ${WHERE} not applied: ${problem}`,
    );
  };
  return poll(
    deps.intervalMs,
    initial === undefined,
    async () => {
      const read = await readRequestHeaderConfigMap(client);
      const decision = decideTrust(state, read);
      switch (decision.kind) {
        case 'unchanged':
        case 'stillKept':
          state = afterTrustDecision(state, decision);
          return;
        case 'keep':
          kept(decision.problem);
          return;
        case 'update': {
          try {
            deps.apply(decision.trust);
          } catch (err) {
            kept(`installing them failed: ${errorMessage(err)}`);
            return;
          }
          state = afterTrustDecision(state, decision);
          deps.metrics?.reloads.inc({ source: 'requestheader', result: 'applied' });
          const t = decision.trust;
          if (t === undefined) {
            deps.log?.warn(
              `${WHERE} no longer names a requestheader CA: front-proxy headers are not trusted any more`,
            );
          } else {
            deps.log?.info(
              {
                caSha256: t.cas.map((c) => c.fingerprint256),
                allowedNames: t.config.allowedNames,
                usernameHeaders: t.config.usernameHeaders,
                groupHeaders: t.config.groupHeaders,
              },
              `front-proxy settings reloaded from ${WHERE}`,
            );
          }
          return;
        }
        default:
          assertNever(decision);
      }
    },
    (err) => deps.log?.error({ err: String(err) }, `checking ${WHERE} failed`),
  );
}
