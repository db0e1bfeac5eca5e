// convoy-controller-manager and convoy-observer as child processes the chaos suite kills -9 and starts
// again. The controller-manager keeps its serving certificate and port across restarts, so the observer's
// wake-ups (--sync-api-url) reach whichever controller-manager runs now. Each restart either keeps the
// process's Lease identity (a container restarted in place: it takes its own Lease back at once) or takes
// a new one (a new pod: it waits for the old holder's Lease to expire). Any exit the suite did not cause
// is recorded — "no process exit except the kills" — and the process is started again so the run goes on.
// On two cores shared with a loaded control plane a start (Node loading convoy and its modules) takes
// 15–40 s; a start that does not reach its ready line within START_TIMEOUT_MS is recorded and tried again.

import { errorMessage } from '../../src/lib/errors.ts';
import { freePort } from '../../src/testenv/ports.ts';
import {
  type ConvoyChild,
  type ManagerProcess,
  startControllerManager,
  startObserver,
  tailLogs,
} from '../support/processes.ts';
import { makeServingCert, type ServingCert } from '../support/serving-cert.ts';

export type Role = 'controller-manager' | 'observer';

const START_TIMEOUT_MS = 180_000;
const START_ATTEMPTS = 3;

export interface UnexpectedExit {
  readonly role: Role;
  readonly identity: string;
  readonly code: number | string;
  readonly at: number;
  readonly logTail: string;
}

export interface CrewOptions {
  readonly kubeconfigPath: string;
  readonly leaseNamespace: string;
  readonly gitCacheDir: string;
  /** --lease-duration of both processes. */
  readonly leaseDuration: string;
}

interface Slot {
  child: ConvoyChild | undefined;
  identity: string;
  generation: number;
  /** Set while the suite itself stops or kills it. */
  expecting: boolean;
}

export class Crew {
  readonly unexpectedExits: UnexpectedExit[] = [];
  /** The output of every process started so far, in start order (for a failed run's logs). */
  readonly outputs: { readonly name: string; readonly log: () => string }[] = [];
  readonly #o: CrewOptions;
  readonly #cert: ServingCert;
  readonly #port: number;
  readonly #slots: Record<Role, Slot>;
  #stopped = false;

  private constructor(o: CrewOptions, cert: ServingCert, port: number) {
    this.#o = o;
    this.#cert = cert;
    this.#port = port;
    this.#slots = {
      'controller-manager': {
        child: undefined,
        identity: 'chaos-manager-0',
        generation: 0,
        expecting: false,
      },
      observer: { child: undefined, identity: 'chaos-observer-0', generation: 0, expecting: false },
    };
  }

  static async start(o: CrewOptions): Promise<Crew> {
    const crew = new Crew(o, await makeServingCert(), await freePort());
    try {
      await crew.#start('controller-manager');
      await crew.#start('observer');
    } catch (err) {
      await crew.stop();
      throw err;
    }
    return crew;
  }

  get manager(): ManagerProcess | undefined {
    return this.#slots['controller-manager'].child as ManagerProcess | undefined;
  }

  /** kill -9; the process stays down until restart(). */
  async kill(role: Role): Promise<void> {
    const slot = this.#slots[role];
    slot.expecting = true;
    await slot.child?.kill();
    slot.child = undefined;
  }

  async restart(role: Role, newIdentity: boolean): Promise<void> {
    const slot = this.#slots[role];
    if (newIdentity) {
      slot.generation++;
      slot.identity = `${role === 'observer' ? 'chaos-observer' : 'chaos-manager'}-${slot.generation}`;
    }
    if (!(await this.#startRetried(role)))
      throw new Error(`${role} did not start in ${START_ATTEMPTS} attempts: ${this.#lastStartFailure(role)}`);
  }

  /**
   * #start, again after a start that failed, up to START_ATTEMPTS; every failed start is recorded as an
   * unexpected exit. False when none succeeded.
   */
  async #startRetried(role: Role): Promise<boolean> {
    for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      try {
        await this.#start(role);
        return true;
      } catch (err) {
        this.unexpectedExits.push({
          role,
          identity: this.#slots[role].identity,
          code: `start failed: ${errorMessage(err)}`,
          at: Date.now(),
          logTail: '',
        });
      }
    }
    return false;
  }

  #lastStartFailure(role: Role): string {
    return this.unexpectedExits.findLast((x) => x.role === role)?.code.toString() ?? '';
  }

  logs(): string {
    const m = this.#slots['controller-manager'].child;
    const o = this.#slots.observer.child;
    if (m === undefined || o === undefined) return '(a process is down)';
    return tailLogs(m, o);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const role of ['observer', 'controller-manager'] as const) {
      const slot = this.#slots[role];
      slot.expecting = true;
      await slot.child?.stop();
      slot.child = undefined;
    }
    await this.#cert.dispose();
  }

  async #start(role: Role): Promise<void> {
    const slot = this.#slots[role];
    const common = {
      kubeconfigPath: this.#o.kubeconfigPath,
      leaseNamespace: this.#o.leaseNamespace,
      leaseDuration: this.#o.leaseDuration,
      identity: slot.identity,
      readyTimeoutMs: START_TIMEOUT_MS,
    };
    const child =
      role === 'controller-manager'
        ? await startControllerManager({
            tenancy: { mode: 'cluster' },
            ...common,
            gitCacheDir: this.#o.gitCacheDir,
            api: { kind: 'serve', tls: this.#cert, port: this.#port },
          })
        : await startObserver({
            ...common,
            wakeups: { kind: 'direct', url: `https://127.0.0.1:${this.#port}`, caFile: this.#cert.certFile },
          });
    slot.child = child;
    slot.expecting = false;
    this.outputs.push({ name: `${this.outputs.length}-${role}-${slot.identity}`, log: () => child.log() });
    void child.exited.then(async (code) => {
      if (slot.expecting || this.#stopped || slot.child !== child) return;
      this.unexpectedExits.push({
        role,
        identity: slot.identity,
        code,
        at: Date.now(),
        logTail: child.log().slice(-4000),
      });
      slot.child = undefined;
      // Every failed start is recorded by #startRetried.
      await this.#startRetried(role);
    });
  }
}
