// The verification of a render on its Release page, in a real browser against the real control plane:
// the ReleaseInventory's `verification` is written here with Server-Side Apply under the observer's
// field manager (convoy-verification), as the observer writes it. A running one counts its soak down
// in the header and draws each check's measurements with its threshold and the soak's end; a failed
// one names the check, the value and the line it crossed; one written for another render leaves the
// page. axe-core finds no serious violation in light or dark.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { API_VERSION, FIELD_MANAGERS } from '../../src/api/constants.ts';
import type { CheckStatus, VerificationStatus } from '../../src/api/schema/verification.ts';
import { R1 } from '../../src/api/testsupport.ts';
import { applyObject } from '../../src/kube/apply.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { configMap, inlineRelease } from '../support/hooks.ts';
import { getRelease } from '../support/release.ts';
import { DEFAULT_HEALTH } from '../support/system.ts';
import { SCREENSHOTS, violationsLightAndDark } from '../support/ui.ts';
import { startUiCluster } from '../support/ui-stack.ts';
import { waitFor } from '../support/wait.ts';

const NS = 'ui-verify';
const NAME = 'checkout';
const WAIT_MS = 90_000;
const ERROR_RATE = 'sum(rate(http_errors_total[1m])) / sum(rate(http_requests_total[1m]))';
const LATENCY = 'histogram_quantile(0.99, sum(rate(http_duration_seconds_bucket[1m])) by (le))';

let ui: Awaited<ReturnType<typeof startUiCluster>> | undefined;
let client: KubeClient;
let page: Page;

before(async () => {
  ui = await startUiCluster('ui-verification', NS);
  client = ui.cluster.client;
  ({ page } = ui.stack);
  // This file writes the verification itself, as the observer would; the real observer would measure
  // the checks' address (127.0.0.1:9, nothing listens) and write its own inconclusive answers over it.
  await ui.stack.observer.stop();
});

after(async () => {
  await ui?.stop();
});

/** A time `s` seconds after `t0`, as the API stores it (RFC 3339, whole seconds). */
const at = (t0: number, s: number) => new Date(t0 + s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** The page's clock format: the local time of day. */
const clockOf = (t: string) => {
  const d = new Date(t);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
};

/** Writes the inventory's verification as the observer does: SSA, field manager convoy-verification. */
const applyVerification = (verification: VerificationStatus) =>
  applyObject(
    client,
    {
      apiVersion: API_VERSION,
      kind: 'ReleaseInventory',
      metadata: { name: NAME, namespace: NS },
      verification,
    },
    { fieldManager: FIELD_MANAGERS.verification, force: true },
  );

/** A prometheus check with measurements every 30 s from t0, the values given, each judged by `phaseOf`. */
function check(
  name: string,
  query: string,
  condition: string,
  t0: number,
  values: readonly number[],
  phaseOf: (v: number) => 'Successful' | 'Failed',
): CheckStatus {
  const measurements = values.map((v, i) => ({
    at: at(t0, 30 * (i + 1)),
    phase: phaseOf(v),
    value: `[${v}]`,
  }));
  const failed = measurements.filter((m) => m.phase === 'Failed').length;
  return {
    name,
    phase: failed > 0 ? 'Failed' : 'Running',
    provider: 'prometheus',
    query,
    condition,
    successful: measurements.length - failed,
    failed,
    inconclusive: 0,
    measurements,
  };
}

test("a render's verification: the soak counted down, each check drawn, a failure named", async () => {
  await client.create(
    inlineRelease(NS, NAME, [configMap('settings')], {
      healthAssessment: DEFAULT_HEALTH,
      failurePolicy: { deadline: '10m' },
      verification: {
        soak: '5m',
        interval: '30s',
        checks: [
          {
            name: 'error-rate',
            prometheus: { address: 'http://127.0.0.1:9/', query: ERROR_RATE },
            failureCondition: 'result[0] > 0.01',
          },
          {
            name: 'latency-p99',
            prometheus: { address: 'http://127.0.0.1:9/', query: LATENCY },
            successCondition: 'result[0] < 0.5',
          },
        ],
      },
    }),
  );
  const rollout = await waitFor(
    "the Release's rollout, its clock started",
    async () => {
      const ro = (await getRelease(client, NS, NAME))?.status?.rollout;
      return ro?.startedAt === undefined ? undefined : ro;
    },
    { timeoutMs: WAIT_MS },
  );
  const renderRef = rollout.renderRef;
  await page.locator(`tr[data-release="${NS}/${NAME}"] a`).click({ timeout: WAIT_MS });
  await page.getByRole('heading', { level: 1, name: `Release ${NS}/${NAME}` }).waitFor({ timeout: WAIT_MS });

  // The soak starts with this rollout (measurements of an earlier attempt are never shown), so its
  // measurements lie a little ahead of the clock; the page counts down to t0 + 5 min.
  const t0 = Date.parse(rollout.startedAt ?? '');
  const running = (ref: string): VerificationStatus => ({
    renderRef: ref,
    startedAt: at(t0, 0),
    phase: 'Running',
    checks: [
      check('error-rate', ERROR_RATE, 'result[0] > 0.01', t0, [0.002, 0.004, 0.003], (v) =>
        v > 0.01 ? 'Failed' : 'Successful',
      ),
      check('latency-p99', LATENCY, 'result[0] < 0.5', t0, [0.21, 0.24, 0.22], (v) =>
        v < 0.5 ? 'Successful' : 'Failed',
      ),
    ],
  });
  const line = page.getByTestId('verification-line');
  await applyVerification(running(renderRef));
  await line.waitFor({ timeout: WAIT_MS });
  // The time left depends on how long the machine took to get here; the end of the soak does not.
  assert.match(
    await line.innerText(),
    new RegExp(`^verifying: \\d+ (min|s) left of the 5 min soak \\(ends at ${clockOf(at(t0, 300))}\\)`),
  );

  const section = page.locator('section[aria-labelledby="h-verification"]');
  const errorRate = section.locator('li[data-check="error-rate"]');
  assert.equal(await errorRate.locator('circle[data-phase="Successful"]').count(), 3);
  await errorRate.getByTestId('threshold').waitFor();
  assert.match((await errorRate.getByTestId('threshold').textContent()) ?? '', /fails > 0\.01/);
  assert.match(
    (await errorRate.getByTestId('soak-end').textContent()) ?? '',
    new RegExp(`soak ends ${clockOf(at(t0, 300))}`),
  );
  assert.match(await errorRate.getByTestId('last').innerText(), /\[0\.003\]\s+Successful/);
  assert.equal(await errorRate.getByTestId('condition').innerText(), 'result[0] > 0.01');
  assert.match(
    (await section.locator('li[data-check="latency-p99"]').getByTestId('threshold').textContent()) ?? '',
    /passes < 0\.5/,
  );
  const v1 = await violationsLightAndDark(page, 'release-verifying');
  assert.deepEqual(v1, [], `axe: ${JSON.stringify(v1, null, 2)}`);

  // The error rate climbs past its line: the check fails and the header says which, with what and when.
  const failedAt = at(t0, 120);
  const failedCheck = check(
    'error-rate',
    ERROR_RATE,
    'result[0] > 0.01',
    t0,
    [0.002, 0.004, 0.003, 0.072],
    (v) => (v > 0.01 ? 'Failed' : 'Successful'),
  );
  await applyVerification({
    ...running(renderRef),
    phase: 'Failed',
    reason: 'VerificationFailed',
    message: `check error-rate failed: ${ERROR_RATE} returned [0.072]`,
    finishedAt: failedAt,
    checks: [
      { ...failedCheck, message: '1 failed of failureLimit 0' },
      running(renderRef).checks?.[1] as CheckStatus,
    ],
  });
  await waitFor(
    'the header to name the failed check',
    async () => (await line.innerText()).startsWith('verification failed'),
    { timeoutMs: WAIT_MS },
  );
  assert.match(
    await line.innerText(),
    new RegExp(
      `^verification failed: error-rate 0\\.072 > 0\\.01 at ${clockOf(failedAt)} check error-rate failed`,
    ),
  );
  assert.equal(await errorRate.locator('circle[data-phase="Failed"]').count(), 1);
  assert.match(await errorRate.getByTestId('last').innerText(), /\[0\.072\]\s+Failed/);
  const v2 = await violationsLightAndDark(page, 'release-verification-failed');
  assert.deepEqual(v2, [], `axe: ${JSON.stringify(v2, null, 2)}`);
  // The header and the section together, for docs/ui.md.
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const top = await page.getByRole('heading', { level: 1 }).boundingBox();
    const bottom = await section.boundingBox();
    assert.ok(top !== null && bottom !== null);
    await page.screenshot({
      path: join(SCREENSHOTS, `verification-${scheme}.png`),
      fullPage: true,
      clip: { x: 0, y: top.y - 8, width: 1280, height: bottom.y + bottom.height - top.y + 16 },
    });
  }
  await page.emulateMedia({ colorScheme: 'light' });

  // Measurements of another render never stand for this one: written for another renderRef, the
  // verification leaves the page.
  await applyVerification(running(R1));
  await line.waitFor({ state: 'detached', timeout: WAIT_MS });
  assert.equal(await section.count(), 0);
});
