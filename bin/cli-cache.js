// Fast start for `turnbridge run` / `chat` / `--help` / `--version`. src/cli.ts and all it
// reaches (packages included) is bundled once with esbuild (installed as tsx's compiler) into
// one CommonJS file under node_modules/.cache/turnbridge/, and loaded through vm.Script with a
// V8 code cache. A manifest lists every source file (and npm's lockfiles for the packages)
// with size and mtime; a start stats them and rebuilds when any changed. tsx's loader alone
// costs ~150 ms per process, this path a few ms. Any failure returns null: the caller uses tsx.
'use strict';
const { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { createRequire, Module } = require('node:module');
const { dirname, join, resolve, sep } = require('node:path');
const { Script } = require('node:vm');

const MAX_AGE_MS = 60 * 60 * 1000;
const SELF = __filename;

/**
 * The bundled CLI module ({main}) for the current sources, or null. `saveCodeCache()` stores
 * V8's compiled code after a command ran, so the next start skips most compiling.
 */
async function loadCompiledCli(root) {
  try {
    const file = await bundledFile(root);
    if (!file) return null;
    const cacheFile = `${file}.v8cache`;
    let cachedData;
    try { cachedData = readFileSync(cacheFile); } catch { /* first run */ }
    const script = new Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
    const mod = { exports: {} };
    script.runInThisContext()(mod.exports, createRequire(file), mod, file, dirname(file));
    if (typeof mod.exports.main !== 'function') return null;
    const saveCodeCache = () => {
      if (cachedData && !script.cachedDataRejected) return;
      try {
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
      } catch { /* a cache, nothing more */ }
    };
    return { main: mod.exports.main, saveCodeCache };
  } catch {
    return null;
  }
}

async function bundledFile(root) {
  const cacheRoot = join(root, 'node_modules', '.cache', 'turnbridge');
  const manifestFile = join(cacheRoot, 'cli-manifest.json');
  const current = readManifest(manifestFile);
  // A node_modules copied from another checkout brings that checkout's manifest: its inputs are
  // that checkout's files, so it would run the other checkout's code. Only our own root counts.
  if (current && current.root === root && upToDate(current) && existsSync(join(cacheRoot, current.dir, 'cli.cjs'))) return join(cacheRoot, current.dir, 'cli.cjs');

  mkdirSync(cacheRoot, { recursive: true });
  const dir = `cli-${Date.now().toString(36)}-${process.pid}`;
  const { build } = require('esbuild');
  const result = await build({
    entryPoints: [join(root, 'src', 'cli.ts')],
    outfile: join(cacheRoot, dir, 'cli.cjs'),
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    metafile: true,
    define: { 'import.meta.url': '__tbImportMetaUrl' },
    banner: { js: "var __tbImportMetaUrl=require('node:url').pathToFileURL(__filename).href;" },
    logLevel: 'silent',
  });
  // Packages change only through npm, which rewrites the lockfiles: stat those, not every file.
  const sources = Object.keys(result.metafile.inputs).map((p) => resolve(root, p)).filter((p) => !p.includes(`${sep}node_modules${sep}`));
  const lockfiles = [join(root, 'package-lock.json'), join(root, 'node_modules', '.package-lock.json')].filter((p) => existsSync(p));
  const inputs = [...sources, ...lockfiles, SELF].map((p) => {
    const st = statSync(p);
    return [p, st.size, st.mtimeMs];
  });
  const tmp = `${manifestFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ root, dir, inputs }));
  renameSync(tmp, manifestFile);
  prune(cacheRoot, dir);
  return join(cacheRoot, dir, 'cli.cjs');
}

function readManifest(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function upToDate(manifest) {
  if (!Array.isArray(manifest.inputs) || typeof manifest.dir !== 'string') return false;
  for (const [path, size, mtimeMs] of manifest.inputs) {
    try {
      const st = statSync(path);
      if (st.size !== size || st.mtimeMs !== mtimeMs) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Remove older bundles once no running process can still be reading them. */
function prune(cacheRoot, keep) {
  for (const name of readdirSync(cacheRoot)) {
    if (name === keep || !name.startsWith('cli-') || name.includes('.')) continue;
    const path = join(cacheRoot, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > MAX_AGE_MS) rmSync(path, { recursive: true, force: true });
    } catch { /* best effort */ }
  }
}

exports.loadCompiledCli = loadCompiledCli;
