// Runs the glint binary: `glint view` as a server the tests talk to, other commands to
// completion. GLINT_EXE overrides the binary (default: build/src/glint of this checkout).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const glintExe = process.env.GLINT_EXE || path.join(repoRoot, 'build/src/glint');

if (!existsSync(glintExe)) throw new Error(`${glintExe}: no glint binary (build first, or set GLINT_EXE)`);

export function runGlint(args) {
  const r = spawnSync(glintExe, args, { encoding: 'utf8', timeout: 120000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Starts `glint view ...args --port PORT` (default 0: any free port) and resolves with its
// URL once it prints it; rejects with what it printed if it exits first.
export function startView(args, { timeoutMs = 60000, port = '0', env = process.env } = {}) {
  const proc = spawn(glintExe, ['view', ...args, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '', err = '';
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`glint view printed no URL in ${timeoutMs} ms: ${out}${err}`));
    }, timeoutMs);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /glint view: (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          proc,
          output: () => out + err,
          // SIGINT, as Ctrl-C: the server must stop cleanly and exit 0.
          async stop() {
            proc.kill('SIGINT');
            return exited;
          },
        });
      }
    });
    proc.stderr.on('data', (d) => { err += d; });
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`glint view exited with ${code} before serving: ${out}${err}`));
    });
  });
}

// Starts `glint train ...args --view --view-port 0` and resolves once it prints the live
// view's URL (on stderr, with the progress); `exited` resolves with its exit code.
export function startTrainView(args, { timeoutMs = 120000 } = {}) {
  const proc = spawn(glintExe, ['train', ...args, '--view', '--view-port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  proc.stdout.on('data', (d) => { out += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`glint train --view printed no URL in ${timeoutMs} ms: ${out}${err}`));
    }, timeoutMs);
    proc.stderr.on('data', (d) => {
      err += d;
      const m = /live view: (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], proc, exited, output: () => out + err });
      }
    });
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`glint train --view exited with ${code} before serving: ${out}${err}`));
    });
  });
}
