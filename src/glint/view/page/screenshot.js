// Saves what the canvas shows as a PNG download: the image at the camera's own size (not
// the size it is displayed at), drawn afresh so that it is complete.

export function screenshotBlob(v) {
  v.draw();
  return new Promise((resolve, reject) =>
    v.canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('screenshot: the canvas gave no PNG'))), 'image/png'));
}

export function screenshotName(v) {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').replace(/Z$/, '');
  return `glint-${v.modeName}-${stamp}.png`;
}

export async function saveScreenshot(v) {
  const blob = await screenshotBlob(v);
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = screenshotName(v);
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

// The bar's button and the P key.
export function attachScreenshot(v) {
  const run = () => saveScreenshot(v).catch((e) => console.error(String(e)));
  document.getElementById('shot').addEventListener('click', run);
  window.addEventListener('keydown', (e) => {
    if (e.key.toLowerCase() === 'p' && e.target.tagName !== 'SELECT' && !e.ctrlKey && !e.metaKey) run();
  });
}
