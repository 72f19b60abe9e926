// Whether dist/ (the tsc build of src/, `npm run build`) is there and newer than every file it is
// built from. bin/turnbridge.js refuses to run an old build, and test/run.mjs rebuilds first, so
// what runs is always the sources as they are. scripts/build.mjs writes the stamp, dated when the
// build began: a source saved while tsc ran counts as newer than the build.
'use strict';
const { readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const STAMP = join('dist', '.build-stamp');
// tsconfig.build.json extends tsconfig.json; the build script decides what lands in dist/.
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', join('scripts', 'build.mjs')];

/** null when dist/ is current; else why not, in a few words. */
function staleReason(root) {
  let built;
  try {
    built = statSync(join(root, STAMP)).mtimeMs;
  } catch {
    return 'there is no build in dist/';
  }
  const files = INPUTS.map((p) => join(root, p));
  for (const entry of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push(join(entry.parentPath ?? entry.path, entry.name));
  }
  for (const file of files) {
    let mtime;
    try {
      mtime = statSync(file).mtimeMs;
    } catch {
      continue; // an input that is gone changes nothing dist/ holds from it
    }
    if (mtime > built) return `${file.slice(root.length + 1)} changed after the last build`;
  }
  return null;
}

module.exports = { STAMP, staleReason };
