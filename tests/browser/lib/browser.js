// Debian's Chromium, headless, WebGL2 through SwiftShader (no GPU needed), driven by
// playwright-core with no browser download and nothing reaching the network.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

export async function launchBrowser() {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath}: no Chromium (scripts/install-deps.sh installs it)`);
  const profile = mkdtempSync(path.join(tmpdir(), 'glint-chromium-'));
  // A persistent context is how playwright takes a --user-data-dir of our own: a fresh
  // profile each run, so that no cache or state carries over between runs.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox', '--ignore-gpu-blocklist',
      // WebGL2 through ANGLE on SwiftShader's Vulkan (with or without --disable-gpu, which is
      // not needed). CHROMIUM_GPU=1 (benchmarks on a machine with a GPU): Chromium's own pick.
      ...(process.env.CHROMIUM_GPU ? [] : ['--enable-unsafe-swiftshader', '--use-angle=swiftshader']),
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
      '--disable-quic', '--disable-default-apps', '--disable-extensions',
    ],
    viewport: { width: 800, height: 600 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Opens the viewer, collecting console errors and page errors, and waits until it has
// loaded (or failed to).
export async function openViewer(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('crash', () => errors.push('the page crashed'));
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === 'true' || document.body.dataset.ready === 'error',
                             null, { timeout: 120000 });
  return { page, errors };
}

export async function readTarget(page) {
  const r = await page.evaluate(() => window.glintTest.readTarget());
  const bytes = Buffer.from(r.rgba, 'base64');
  return { width: r.width, height: r.height, rgba: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4) };
}
