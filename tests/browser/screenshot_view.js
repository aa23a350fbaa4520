// A screenshot of the viewer page (headless Chromium), for the README:
//   node tests/browser/screenshot_view.js MODEL OUT.png [--cameras DATASET] [--camera I]
//        [--orbit DX,DY] [--zoom STEPS] [--mode color|depth|alpha|lit] [--size WxH]
//        [--lights LIGHTS.json [--setup NAME] [--shadows pcf|transmittance|none]]
// Snaps to dataset camera I (default 0), then drags by DX,DY pixels (default 0,0: stay on it)
// and turns the wheel STEPS notches (negative: closer).
import { startView } from './lib/glint.js';
import { launchBrowser, openViewer } from './lib/browser.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const [model, out] = args;
const cameras = opt('--cameras', null);
const [w, h] = opt('--size', '900x640').split('x').map(Number);
const [dx, dy] = opt('--orbit', '0,0').split(',').map(Number);

const lights = opt('--lights', null);
const server = await startView([model, ...(cameras ? ['--cameras', cameras] : []), ...(lights ? ['--lights', lights] : [])]);
const browser = await launchBrowser();
try {
  const { page, errors } = await openViewer(browser.context, server.url);
  await page.setViewportSize({ width: w, height: h });
  await page.evaluate((i) => { if (window.glintTest.cameras().length) window.glintTest.snapTo(i); },
                      Number(opt('--camera', '0')));
  await page.evaluate((m) => window.glintTest.setMode(m), opt('--mode', 'color'));
  if (opt('--setup', null)) await page.selectOption('#setup', opt('--setup'));
  if (opt('--shadows', null)) await page.selectOption('#shadows', opt('--shadows'));
  if (dx || dy) {
    const box = await page.locator('#canvas').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + dx, box.y + box.height / 2 + dy, { steps: 4 });
    await page.mouse.up();
  }
  const zoom = Number(opt('--zoom', '0'));
  for (let k = 0; k < Math.abs(zoom); ++k) await page.mouse.wheel(0, Math.sign(zoom) * 100);
  await page.evaluate(() => window.glintTest.render());
  await page.screenshot({ path: out });
  console.log(`wrote ${out}${errors.length ? '; page errors: ' + errors.join('; ') : ''}`);
} finally {
  await browser.close();
  await server.stop();
}
