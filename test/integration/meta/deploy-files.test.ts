/**
 * The deployment files hold what docs/operations.md says of them, checked with the tools there
 * are here (no Docker daemon: the image itself is not built in tests; start-commands.test.ts runs
 * its command under tini). The image installs `npm ci --omit=dev`, so nothing the bridge, the CLI
 * or the shipped profiles import may be a devDependency.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../cli/cli-process.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p, ext) : ext.test(n) ? [p] : [];
  });
}

/** Bare specifiers of static imports, dynamic imports and requires (type-only imports excluded). */
function packagesImported(text: string): string[] {
  const specs = [
    ...[...text.matchAll(/^\s*import\s+(?!type\s)[^'"]*?from\s*['"]([^'"]+)['"]/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s*export\s+(?!type\s)[^'"]*?from\s*['"]([^'"]+)['"]/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!),
  ];
  return specs.filter((s) => !s.startsWith('.') && !s.startsWith('/') && !s.startsWith('node:') && !builtinModules.includes(s.split('/')[0]!))
    .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!));
}

test('what runs in production imports only dependencies (the image installs npm ci --omit=dev)', () => {
  const shipped = [...files(join(ROOT, 'src'), /\.ts$/), ...files(join(ROOT, 'bin'), /\.js$/), ...files(join(ROOT, 'profiles'), /\.mjs$/)];
  assert.ok(shipped.length > 50);
  for (const f of shipped) {
    for (const name of packagesImported(readFileSync(f, 'utf8'))) {
      assert.ok(name in pkg.dependencies, `${f.slice(ROOT.length + 1)} imports ${name}, which is ${name in pkg.devDependencies ? 'a devDependency' : 'not a dependency'}`);
    }
  }
});

test('Dockerfile: Debian with Node 20, bubblewrap and tini, a non-root user, the data volume, tini running the bridge', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('FROM '));
  assert.ok(stages.length >= 1);
  for (const [l] of stages) assert.match(l, /^FROM node:20-bookworm(-slim)?( AS \w+)?$/);
  const final = lines.slice(stages.at(-1)![1]);
  const word = (w: string) => final.filter((l) => l.startsWith(`${w} `)).map((l) => l.slice(w.length + 1));
  const runs = word('RUN').join('\n');
  for (const p of ['bubblewrap', 'tini', 'ca-certificates']) assert.match(runs, new RegExp(`apt-get install .*\\b${p}\\b`));
  const user = word('USER').at(-1);
  assert.ok(user && user !== 'root' && user !== '0', `runs as ${user}`);
  assert.match(runs, new RegExp(`useradd .*${user}`));
  const env = word('ENV').join(' ');
  const dataDir = /TURNBRIDGE_DATA_DIR=(\S+)/.exec(env)?.[1];
  assert.ok(dataDir, 'TURNBRIDGE_DATA_DIR is set');
  assert.ok((JSON.parse(word('VOLUME').at(-1)!) as string[]).includes(dataDir), `${dataDir} is a volume`);
  assert.match(runs, new RegExp(`chown ${user}:${user} .*${dataDir}`));
  assert.deepEqual(JSON.parse(word('ENTRYPOINT').at(-1)!), ['/usr/bin/tini', '--']);
  assert.deepEqual(JSON.parse(word('CMD').at(-1)!), ['node', 'bin/turnbridge.js', 'start']);
  assert.match(lines.join('\n'), /RUN npm ci --omit=dev/);
  // bin/turnbridge.js runs dist/ only: the image must hold the build (a stage with tsc makes it).
  assert.match(lines.join('\n'), /RUN npm run build/);
  assert.ok(word('COPY').some((c) => /^--from=\w+ \/app\/dist \.\/dist$/.test(c)), 'the final stage copies dist/ from the build stage');
  assert.ok(readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').includes('dist'), 'a local dist/ is not copied over the built one');
  const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
  for (const p of ['node_modules', '.env', 'data']) assert.ok(ignore.includes(p), `.dockerignore leaves out ${p}`);
});

test('the Dockerfile\'s apt packages exist in this Debian (names checked with apt-cache, no network)', { skip: spawnSync('apt-cache', ['--version']).status === 0 ? false : 'not Debian' }, () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const names = [...text.matchAll(/apt-get install -y --no-install-recommends ([^&\n]+)/g)].flatMap((m) => m[1]!.trim().split(/\s+/));
  assert.ok(names.includes('bubblewrap'));
  const r = spawnSync('apt-cache', ['show', ...names], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});

test('compose.yaml: the bridge from the Dockerfile with Redis, a stop grace longer than the drain', () => {
  const c = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8')) as { services: Record<string, Record<string, unknown>> };
  assert.match(String(c.services.redis!.image), /^redis:/);
  const bridge = c.services.bridge1!;
  assert.equal(bridge.build, '.');
  assert.equal(bridge.command, undefined, 'the image\'s own command (tini + node), not npm');
  assert.equal((bridge.environment as Record<string, string>).REDIS_URL, 'redis://redis:6379');
  assert.equal((bridge.environment as Record<string, string>).TURNBRIDGE_BUS_KEY_FILE, '/run/secrets/bus_key', 'REDIS_URL needs the bus key');
  assert.deepEqual(bridge.secrets, ['bus_key']);
  assert.equal((c as unknown as { secrets: Record<string, { file: string }> }).secrets.bus_key!.file, './bus-key');
  assert.ok(Number.parseInt(String(bridge.stop_grace_period), 10) > 10, 'above shutdown_grace_secs (10 s)');
  // Under Docker's default seccomp profile and AppArmor bubblewrap cannot make its user namespace:
  // the shipped deployment would run every agent unboxed (auto's fallback), with only a warning.
  assert.deepEqual(bridge.security_opt, ['seccomp=unconfined', 'apparmor=unconfined'], 'the agent box can start in the container');
});

test('the Dockerfile\'s own docker run line gives the box what it needs, as docs/operations.md\'s does', () => {
  for (const file of ['Dockerfile', 'docs/operations.md']) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const run = /docker run ([^\n]*(?:\\\n[^\n]*)*)/.exec(text)?.[1] ?? '';
    assert.match(run, /--security-opt seccomp=unconfined/, `${file}: ${run}`);
    assert.match(run, /--security-opt apparmor=unconfined/, `${file}: ${run}`);
  }
});

test('docs/operations.md\'s compose example is compose.yaml with more replicas, each with its own id, port and workspace', () => {
  const shipped = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8')) as Compose;
  const ops = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  const example = /With Docker Compose:[\s\S]*?```yaml\n([\s\S]*?)```/.exec(ops)?.[1];
  assert.ok(example, 'docs/operations.md shows a compose example');
  const doc = parse(example, { merge: true }) as Compose;
  assert.deepEqual(doc.services.redis, shipped.services.redis);
  assert.deepEqual(doc.services.bridge1, shipped.services.bridge1);
  assert.deepEqual(doc.secrets, shipped.secrets);
  const replicas = Object.keys(doc.services).filter((n) => n !== 'redis');
  assert.ok(replicas.length >= 3, replicas.join(', '));
  const seen = { id: new Set<string>(), port: new Set<string>(), workspace: new Set<string>() };
  for (const name of replicas) {
    const b = doc.services[name]!;
    const env = b.environment as Record<string, string>;
    assert.deepEqual({ ...b, environment: undefined, ports: undefined, volumes: undefined }, { ...shipped.services.bridge1, environment: undefined, ports: undefined, volumes: undefined }, `${name} is bridge1 but for its id, port and workspace`);
    assert.deepEqual(Object.keys(env).sort(), Object.keys(shipped.services.bridge1!.environment as object).sort());
    seen.id.add(env.TURNBRIDGE_REPLICA_ID!);
    seen.port.add(String((b.ports as string[])[0]).split(':')[0]!);
    const workspace = String((b.volumes as string[])[0]).split(':')[0]!;
    seen.workspace.add(workspace);
    assert.ok(workspace in (doc.volumes ?? {}), `${workspace} is declared`);
  }
  for (const [what, set] of Object.entries(seen)) assert.equal(set.size, replicas.length, `each replica its own ${what}`);
});

interface Compose { services: Record<string, Record<string, unknown>>; secrets?: unknown; volumes?: Record<string, unknown> }

test('the systemd unit runs the node process itself and passes systemd-analyze verify', () => {
  const unit = readFileSync(join(ROOT, 'deploy/turnbridge.service'), 'utf8');
  assert.match(unit, /^ExecStart=\/usr\/bin\/node bin\/turnbridge\.js start$/m);
  assert.match(unit, /^KillSignal=SIGTERM$/m);
  assert.ok(Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]) > 10, 'longer than the drain');
  assert.match(unit, /^User=(?!root)\w+$/m);
  assert.match(unit, /^StateDirectoryMode=0700$/m, 'the data dir private, as the bridge keeps it (docs/security.md)');
  const verify = spawnSync('systemd-analyze', ['verify', join(ROOT, 'deploy/turnbridge.service')], { encoding: 'utf8' });
  if (verify.error) return; // no systemd here: the text checks above stand
  assert.equal(verify.status, 0, verify.stderr);
  assert.doesNotMatch(verify.stderr, /turnbridge\.service/, verify.stderr);
});

test('the Procfile runs the node process directly', () => {
  assert.equal(readFileSync(join(ROOT, 'Procfile'), 'utf8'), 'web: node bin/turnbridge.js start\n');
});
