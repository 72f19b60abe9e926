#!/usr/bin/env node
// The `turnbridge` command. Every command (run, chat, start, doctor, ...) runs the one build of
// the sources: dist/src/cli.js, compiled by tsc (`npm run build`, which `npm ci` runs as npm's
// `prepare`). Plain JavaScript loaded by Node itself: no compiler or loader hook at start-up
// (tsx's costs ~250 ms a process), no bundle, no vm.Script. A missing or out-of-date build is
// an error naming the command that fixes it, never a silent second way to run.
// src/cli.ts lazy-loads each command's modules.
// This process is the bridge itself for `start`: signals sent to it (SIGTERM from systemd, a
// container runtime or `kill`) reach the bridge's own handlers, with no wrapper in between.
// CommonJS (bin/package.json): it starts a few milliseconds faster than an ES module.
'use strict';
const { dirname } = require('node:path');
const { staleReason } = require('./build-state.js');

// A reader that goes away (`turnbridge run ... | head`) is not a crash: stop writing quietly.
// The run command also cancels its turn then, so that no agent is left behind.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

async function start(argv) {
  const root = dirname(__dirname);
  const stale = staleReason(root);
  if (stale !== null) {
    process.stderr.write(`turnbridge: ${stale}: run \`npm run build\` in ${root}\n`);
    return 1;
  }
  const { main } = await import('../dist/src/cli.js');
  return main(argv);
}

start(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`turnbridge: ${err && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
