#!/usr/bin/env node
// The `turnbridge` command, runnable from a fresh clone without a build step.
// `run`, `chat`, `--help` and `--version` load a cached bundle of src/cli.ts (rebuilt when a
// source changes; see cli-cache.js); `start`, and any cache failure, go through tsx's ESM
// loader. TURNBRIDGE_NO_CACHE=1 forces tsx. src/cli.ts lazy-loads each command's modules.
// CommonJS (bin/package.json): it starts a few milliseconds faster than an ES module.
'use strict';
const { dirname } = require('node:path');

// A reader that goes away (`turnbridge run ... | head`) is not a crash: stop writing quietly.
// The run command also cancels its turn then, so that no agent is left behind.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

const FAST = new Set(['run', 'chat', '--help', '-h', 'help', '--version', '-v']);

async function start(argv) {
  if (FAST.has(argv[0]) && process.env.TURNBRIDGE_NO_CACHE !== '1') {
    const cli = await require('./cli-cache.js').loadCompiledCli(dirname(__dirname));
    if (cli) {
      const code = await cli.main(argv);
      if (argv[0] === 'run' || argv[0] === 'chat') cli.saveCodeCache();
      return code;
    }
  }
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
