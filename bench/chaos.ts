// npm run chaos (= npm run bench:chaos) — the full chaos run: ≥ 20 Releases driven through healthy →
// healthy → unhealthy renders while the controller-manager and the observer are killed -9 and
// kube-apiserver is restarted on a seeded schedule, and Prometheus, which every render's verification
// reads, is killed during the soaks (see docs/development.md, "The chaos suite"). Prints
// the seed, the faults done (kills, restarts), how many invariants held, every violation, and the seconds
// from the last fault until every Release had converged. Exits 1 when an invariant was broken.
// Env: CHAOS_SEED (replays a run), CHAOS_RELEASES, CHAOS_KILLS, CHAOS_APISERVER_RESTARTS,
// CHAOS_PROMETHEUS_KILLS.
import { INVARIANTS } from '../test/chaos/invariants.ts';
import { chaosOptions } from '../test/chaos/options.ts';
import { runChaos } from '../test/chaos/run.ts';
import { STEPS } from '../test/chaos/scenario.ts';

const log = (line: string) => process.stdout.write(`${line}\n`);
const report = await runChaos(chaosOptions('full', process.env, log));
for (const x of report.violations) log(`VIOLATION ${x.invariant}: ${x.subject}: ${x.detail}`);
log(
  [
    `seed ${report.seed}`,
    `releases ${report.releases}`,
    `kills ${report.kills}`,
    `apiserver restarts ${report.apiServerRestarts}`,
    `prometheus kills ${report.prometheusKills}`,
    `verifications passed ${report.verificationsPassed}`,
    // The drive can end before the schedule does: the faults it never reached are not counted above.
    `faults done ${report.kills + report.apiServerRestarts}/${report.schedule.length}`,
    `invariants held ${report.invariantsHeld}/${INVARIANTS.length}`,
    `violations ${report.violations.length}`,
    `convergence after last fault ${report.convergenceSeconds ?? 'never'} s`,
    `transitions seen ${report.transitionsSeen}`,
    `hook Jobs seen ${report.hookJobsSeen}`,
    `watch relists ${report.relists}`,
    `step seconds median/max ${STEPS.map((s) => `${s}: ${report.stepSeconds[s].median}/${report.stepSeconds[s].max}`).join(' ')}`,
    `duration ${report.durationSeconds} s`,
  ].join(', '),
);
process.exitCode = report.violations.length === 0 ? 0 : 1;
