// The web UI for e2e tests and the bench: `convoy ui` run as the user would run it (a child process of
// the CLI with a kubeconfig), its address read from the line it prints, and Debian's Chromium driven by
// playwright-core (installed by ensureChromium when missing; never a downloaded browser). Screenshots
// go to test-output/ui/ (gitignored).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { ensureChromium } from '../../src/testenv/chromium.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SCREENSHOTS = join(ROOT, 'test-output/ui');

export interface UiProcess {
  /** The address with the session token. */
  readonly url: string;
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  log(): string;
  stop(): Promise<void>;
}

/** Starts `convoy ui` with these arguments; resolves once it printed its address. */
export async function startUi(args: readonly string[], timeoutMs = 60_000): Promise<UiProcess> {
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'src/cmd/convoy.ts'), 'ui', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  child.stderr?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      process.kill(-child.pid, 'SIGTERM');
      const t = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`convoy ui printed no address in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const check = () => {
      const m = /^convoy ui: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`convoy ui exited (${code}) before printing its address:\n${out}`));
    });
  });
  return { url, origin: new URL(url).origin, log: () => out, stop };
}

/** Debian's Chromium, headless (no sandbox: tests run as root in a container). */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = await ensureChromium({ timeoutMs: 600_000 });
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'], timeout: 60_000 });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly string[] }[];
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: join(ROOT, 'node_modules/axe-core/axe.min.js') });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * axe-core's serious and critical violations in the light and the dark colour scheme (each tagged
 * with its scheme), and a screenshot of each: `name`.png and `name`-dark.png. Leaves the page light.
 */
export async function violationsLightAndDark(
  page: Page,
  name: string,
): Promise<(AxeViolation & { readonly scheme: 'light' | 'dark' })[]> {
  const out: (AxeViolation & { readonly scheme: 'light' | 'dark' })[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await screenshot(page, scheme === 'light' ? name : `${name}-dark`);
    out.push(...(await seriousViolations(page)).map((v) => ({ ...v, scheme })));
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return out;
}
