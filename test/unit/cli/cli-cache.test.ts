import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ECHO, ROOT, parseJsonLine, runCli } from './cli-process.js';

interface CompiledCli {
  main(argv: string[]): Promise<number>;
  saveCodeCache(): void;
}
const CACHE_MODULE = join(ROOT, 'bin/cli-cache.js');
const { loadCompiledCli } = (await import(CACHE_MODULE)) as { loadCompiledCli(root: string): Promise<CompiledCli | null> };

function fakeRoot(cliSource: string): { root: string; write(source: string): void; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), 'tb-cli-cache-'));
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'node_modules'));
  const write = (source: string) => writeFileSync(join(root, 'src', 'cli.ts'), source);
  write(cliSource);
  return { root, write, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

test('the start-up bundle is rebuilt when a source changes, and keeps import.meta.url working', async () => {
  const app = fakeRoot(`import { answer } from './answer.js';\nexport async function main(argv: string[]): Promise<number> { return answer + argv.length; }\n`);
  try {
    writeFileSync(join(app.root, 'src', 'answer.ts'), 'export const answer: number = 10;\n');
    const first = await loadCompiledCli(app.root);
    assert.ok(first);
    assert.equal(await first.main(['x']), 11);
    first.saveCodeCache();
    const dirs = readdirSync(join(app.root, 'node_modules/.cache/turnbridge')).filter((n) => n.startsWith('cli-') && !n.includes('.'));
    assert.equal(dirs.length, 1);
    assert.ok(existsSync(join(app.root, 'node_modules/.cache/turnbridge', dirs[0]!, 'cli.cjs.v8cache')), 'code cache written');

    const again = await loadCompiledCli(app.root);
    assert.equal(await again!.main([]), 10, 'unchanged sources: same bundle');

    writeFileSync(join(app.root, 'src', 'answer.ts'), 'export const answer: number = 200;\n');
    const rebuilt = await loadCompiledCli(app.root);
    assert.equal(await rebuilt!.main([]), 200, 'an imported file changed: rebuilt');

    app.write(`export async function main(): Promise<number> { return import.meta.url.startsWith('file://') ? 3 : 4; }\n`);
    assert.equal(await (await loadCompiledCli(app.root))!.main([]), 3);
  } finally {
    app.cleanup();
  }
});

test('a cache copied with node_modules from another checkout is not used: the bundle is rebuilt from this checkout', async () => {
  const main = fakeRoot(`export async function main(): Promise<number> { return 1; }\n`);
  const copy = fakeRoot(`export async function main(): Promise<number> { return 2; }\n`);
  try {
    assert.equal(await (await loadCompiledCli(main.root))!.main([]), 1);
    // As a worktree made by copying main's node_modules: main's manifest names main's files.
    cpSync(join(main.root, 'node_modules'), join(copy.root, 'node_modules'), { recursive: true });
    assert.equal(await (await loadCompiledCli(copy.root))!.main([]), 2, "this checkout's source, not the other's");
  } finally {
    main.cleanup();
    copy.cleanup();
  }
});

test('sources that do not build give null, so the command falls back to tsx', async () => {
  const app = fakeRoot('export async function main( { this is not TypeScript\n');
  try {
    assert.equal(await loadCompiledCli(app.root), null);
  } finally {
    app.cleanup();
  }
});

test('TURNBRIDGE_NO_CACHE=1 runs the same command through tsx with the same result', async () => {
  const r = await runCli(['run', ECHO, '--message', 'via tsx', '--json'], { env: { TURNBRIDGE_NO_CACHE: '1' } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(parseJsonLine(r.stdout).reply, 'You said: via tsx');
});
