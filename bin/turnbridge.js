#!/usr/bin/env node
// The `turnbridge` command, runnable from a fresh clone without a build step: every command
// (run, chat, start, doctor, ...) loads src/cli.ts through tsx's ESM loader in this process, the
// same code path the tests and `npm start` take. No second build (a bundle or a tsc output) to
// drift from the sources. src/cli.ts lazy-loads each command's modules.
// This process is the bridge itself for `start`: signals sent to it (SIGTERM from systemd, a
// container runtime or `kill`) reach the bridge's own handlers, with no wrapper in between.
// CommonJS (bin/package.json): it starts a few milliseconds faster than an ES module.
'use strict';

// A reader that goes away (`turnbridge run ... | head`) is not a crash: stop writing quietly.
// The run command also cancels its turn then, so that no agent is left behind.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

async function start(argv) {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/cli.ts');
  return main(argv);
}

start(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`turnbridge: ${err && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
