#!/usr/bin/env node
// Setup for test/real-cli: installs claude, codex and gemini from npm at the versions pinned in
// clis.json into a cache directory shared by every clone on this machine (about 900 MB: kept out
// of devDependencies so `npm ci` stays small). Each CLI goes in its own folder, so one that cannot
// be installed (offline, unsupported platform) is skipped by the suite with the reason written to
// status.json, while the others run. Already installed versions are reused, not fetched again.
//   TB_REAL_CLI_CACHE  the cache directory (default ${XDG_CACHE_HOME:-~/.cache}/turnbridge/real-clis)
//   TB_REAL_CLI=0      do not install; the suite skips with that reason
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLIS = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'clis.json'), 'utf8'));

export function cacheDir(env = process.env) {
  return env.TB_REAL_CLI_CACHE || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'turnbridge', 'real-clis');
}

/** Where a pinned CLI lives in the cache, and its executable. */
export function cliPaths(name, env = process.env) {
  const { package: pkg, version } = CLIS[name];
  const dir = join(cacheDir(env), `${pkg.replace('/', '+')}@${version}`);
  return { dir, bin: join(dir, 'node_modules', '.bin', name) };
}

function works(bin, version) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  return r.status === 0 && r.stdout.includes(version);
}

/** The lines of npm's output that say what went wrong (not its boilerplate about logs and proxies). */
function why(r) {
  if (r.error) return r.error.message;
  const boiler = /complete log of this run|behind a proxy|npm help config|^npm error\s*$/;
  const lines = `${r.stderr ?? ''}\n${r.stdout ?? ''}`.split('\n').map((l) => l.trim()).filter((l) => l && !boiler.test(l));
  return lines.slice(0, 3).join(' ') || `exit ${r.status}`;
}

function install(name, env) {
  const { package: pkg, version } = CLIS[name];
  const { dir, bin } = cliPaths(name, env);
  // The marker is written once `--version` answered: reuse costs no CLI start (gemini's takes seconds).
  const marker = join(dir, 'verified.json');
  if (existsSync(bin) && existsSync(marker)) return { bin, version, reused: true };
  // Install beside the final folder, then rename: a second clone installing at the same time
  // never sees a half-installed CLI.
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'turnbridge-real-cli', private: true }));
  const started = Date.now();
  // --ignore-scripts: gemini's optional node-pty build is not needed headless. The one script
  // that is (claude's, which copies its platform package's native binary over a stub) runs below.
  const r = spawnSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false', `${pkg}@${version}`], { cwd: tmp, encoding: 'utf8', env });
  const post = r.status === 0 && CLIS[name].postinstall ? spawnSync(process.execPath, [CLIS[name].postinstall], { cwd: tmp, encoding: 'utf8', env }) : null;
  const failed = r.status !== 0 ? r : post && post.status !== 0 ? post : null;
  if (failed) {
    rmSync(tmp, { recursive: true, force: true });
    return { error: `could not be installed: ${failed === r ? 'npm install' : 'the install script of'} ${pkg}@${version} failed: ${why(failed)}` };
  }
  rmSync(dir, { recursive: true, force: true });
  try { renameSync(tmp, dir); } catch { rmSync(tmp, { recursive: true, force: true }); }
  if (!works(bin, version)) return { error: `does not run: ${pkg}@${version} installed but \`${name} --version\` does not report ${version} on this platform` };
  writeFileSync(marker, JSON.stringify({ package: pkg, version }));
  return { bin, version, seconds: Math.round((Date.now() - started) / 100) / 10 };
}

export function statusFile(env = process.env) {
  return join(cacheDir(env), 'status.json');
}

export function installAll(env = process.env) {
  const status = {};
  // The suite itself skips on TB_REAL_CLI=0; the shared status is left as it is for other clones.
  if (env.TB_REAL_CLI === '0') return status;
  for (const name of Object.keys(CLIS)) {
    const s = install(name, env);
    status[name] = s;
    const { package: pkg, version } = CLIS[name];
    process.stderr.write(s.error ? `real-cli: ${name}: ${s.error}\n` : `real-cli: ${pkg}@${version} ${s.reused ? 'cached' : `installed in ${s.seconds} s`}\n`);
  }
  mkdirSync(cacheDir(env), { recursive: true });
  writeFileSync(statusFile(env), JSON.stringify(status, null, 2));
  return status;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) installAll();
