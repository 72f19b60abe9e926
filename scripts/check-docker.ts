/**
 * npm run check:docker — the Dockerfile's build steps, run for real on clean Debian bookworm
 * roots, without a Docker daemon (there is none on the machines this project is tested on).
 *
 * Each stage of the Dockerfile starts from a fresh copy of a Debian bookworm root made with
 * debootstrap (minbase, cached after the first run), made into a stand-in for `node:20-bookworm-slim`:
 * this machine's Node 20 and npm in /usr/local, the `node` user, Debian's three apt sources.
 * Then every instruction of the stage runs as Docker would: RUN in the root (chroot, its own
 * mount namespace with /proc and /dev), COPY from the build context (.dockerignore applied) or from
 * an earlier stage, WORKDIR, ENV, USER. An instruction this script does not know fails the check
 * (so a new one is not skipped silently). The final root is then used as the image: as its USER,
 * with its ENV, its ENTRYPOINT + CMD serves /healthz, its HEALTHCHECK passes, `turnbridge run`
 * answers with the echo profile, and SIGTERM to tini ends it with exit 0.
 *
 * What it cannot show: Docker's own layer and cache behaviour, and the real node image's Node
 * (nodejs.org's build; here this machine's Node 20). Where this machine reaches the network in its
 * own way (a CA bundle for a TLS-inspecting proxy, Node headers instead of downloads), the roots
 * are given the same, and the output says so. Needs root (chroot, mount), debootstrap
 * (apt-get install debootstrap), and the Debian mirror and the npm registry. Takes minutes.
 *
 *   npm run check:docker                 # keeps nothing but the cached base root
 *   npm run check:docker -- --fresh      # a new debootstrap base
 *   npm run check:docker -- --keep       # leaves the stage roots for a look (their path is printed)
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, posix } from 'node:path';

const CONTEXT = process.cwd();
const MIRROR = process.env.DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'turnbridge', 'check-docker');
const BASE_TAR = join(CACHE, 'bookworm-minbase.tar');
const IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const args = new Set(process.argv.slice(2));

class CheckFailed extends Error {}

function fail(message: string): never {
  throw new CheckFailed(message);
}

function step(what: string): () => void {
  const began = Date.now();
  process.stdout.write(`• ${what}\n`);
  return () => process.stdout.write(`  done in ${((Date.now() - began) / 1000).toFixed(1)} s\n`);
}

/** Run a host command; its output goes to a buffer shown only when it fails. */
function host(cmd: string, argv: string[], opts: { input?: string } = {}): string {
  const r = spawnSync(cmd, argv, { encoding: 'utf8', input: opts.input, maxBuffer: 256 * 1024 * 1024 });
  if (r.error) fail(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) fail(`${cmd} ${argv.join(' ')} exited ${r.status}:\n${tail(r.stdout + r.stderr)}`);
  return r.stdout;
}

const tail = (text: string, lines = 40) => text.trimEnd().split('\n').slice(-lines).join('\n');

// ---- the Dockerfile -------------------------------------------------------------------------

interface Instruction { word: string; rest: string; line: number }
interface Stage { name?: string; from: string; steps: Instruction[] }

/** Instructions of the Dockerfile: continuation lines joined, comments and blank lines dropped. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const at = i + 1;
    let line = lines[i]!;
    if (/^\s*(#|$)/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      i++;
      const next = lines[i]!;
      line = line.replace(/\\\s*$/, ' ') + (/^\s*#/.test(next) ? '' : next.trim());
    }
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m) fail(`Dockerfile line ${at}: not an instruction: ${line}`);
    const word = m[1]!.toUpperCase();
    const rest = m[2]!.trim();
    if (word === 'FROM') {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!f) fail(`Dockerfile line ${at}: FROM ${rest}`);
      stages.push({ from: f[1]!, ...(f[2] ? { name: f[2] } : {}), steps: [] });
    } else {
      if (stages.length === 0) fail(`Dockerfile line ${at}: ${word} before FROM`);
      stages.at(-1)!.steps.push({ word, rest, line: at });
    }
  }
  return stages;
}

// ---- the build context (.dockerignore) ------------------------------------------------------

/** Docker's .dockerignore, for the patterns it holds here: anchored at the context root, `*` within one name, `!` re-includes. */
function ignoredBy(patterns: string[]): (rel: string) => boolean {
  const rules = patterns.map((p) => p.trim()).filter((p) => p && !p.startsWith('#')).map((p) => {
    const negate = p.startsWith('!');
    const body = posix.normalize((negate ? p.slice(1) : p).replace(/^\/+/, ''));
    const re = new RegExp(`^${body.split('/').map((s) => (s === '**' ? '.*' : s.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]'))).join('/')}(/.*)?$`);
    return { negate, re };
  });
  return (rel) => {
    let ignored = false;
    for (const r of rules) if (r.re.test(rel)) ignored = !r.negate;
    return ignored;
  };
}

/** A copy of the build context as Docker sends it (what .dockerignore leaves). */
function contextCopy(into: string): string {
  const ignored = ignoredBy(readFileSync(join(CONTEXT, '.dockerignore'), 'utf8').split('\n'));
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(CONTEXT, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      if (ignored(r)) continue;
      const st = lstatSync(join(CONTEXT, r));
      if (st.isDirectory()) {
        mkdirSync(join(into, r), { recursive: true });
        walk(r);
      } else {
        mkdirSync(dirname(join(into, r)), { recursive: true });
        cpSync(join(CONTEXT, r), join(into, r), { verbatimSymlinks: true });
      }
    }
  };
  mkdirSync(into, { recursive: true });
  walk('');
  return into;
}

// ---- roots ----------------------------------------------------------------------------------

function baseTar(): string {
  if (existsSync(BASE_TAR) && !args.has('--fresh')) return BASE_TAR;
  const done = step(`debootstrap --variant=minbase bookworm (${MIRROR}), cached in ${BASE_TAR}`);
  mkdirSync(CACHE, { recursive: true });
  const dir = mkdtempSync(join(CACHE, 'base-'));
  try {
    host('debootstrap', ['--variant=minbase', 'bookworm', dir, MIRROR]);
    host('tar', ['-C', dir, '-cf', `${BASE_TAR}.part`, '.']);
    host('mv', [`${BASE_TAR}.part`, BASE_TAR]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  done();
  return BASE_TAR;
}

/**
 * A fresh root standing in for node:20-bookworm-slim: clean Debian bookworm, this machine's
 * Node 20 and npm in /usr/local (as the image has them), the `node` user, Debian's apt sources.
 */
function nodeImageRoot(at: string): void {
  mkdirSync(at, { recursive: true });
  host('tar', ['-C', at, '-xf', baseTar()]);
  // the root's own mode comes from the tar's "." (a private temp dir): an image's / is 0755
  chmodSync(at, 0o755);
  const version = process.versions.node;
  if (!version.startsWith('20.')) fail(`the stand-in for node:20 uses this machine's Node, which is ${version}: run the check with Node 20`);
  cpSync(process.execPath, join(at, 'usr/local/bin/node'));
  const npmDir = [join(dirname(process.execPath), '../lib/node_modules/npm'), '/usr/local/lib/node_modules/npm', '/usr/lib/node_modules/npm'].find((d) => existsSync(join(d, 'package.json')));
  if (!npmDir) fail('npm\'s own folder (lib/node_modules/npm) was not found beside this Node');
  cpSync(npmDir, join(at, 'usr/local/lib/node_modules/npm'), { recursive: true, verbatimSymlinks: true });
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(at, 'usr/local/bin/npm'));
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(at, 'usr/local/bin/npx'));
  if (HOST_CA) cpSync(HOST_CA, join(at, HOST_CA_IN_ROOT));
  if (HOST_NODEDIR) cpSync(join(HOST_NODEDIR, 'include/node'), join(at, 'usr/local/include/node'), { recursive: true });
  writeFileSync(join(at, 'etc/apt/sources.list'), '');
  writeFileSync(join(at, 'etc/apt/sources.list.d/debian.sources'), [
    `Types: deb\nURIs: ${MIRROR}\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n`,
    'Types: deb\nURIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n',
  ].join('\n'));
  inRoot(at, { user: 'root', workdir: '/', env: {} }, 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node');
}

interface RunAs { user: string; workdir: string; env: Record<string, string> }

/**
 * This machine's extra CA bundle (NODE_EXTRA_CA_CERTS), where it reaches the npm registry through
 * a TLS-inspecting proxy: copied into each root and named to Node there, as `docker build` behind
 * such a proxy would need too. Not part of the image being checked.
 */
const HOST_CA = process.env.NODE_EXTRA_CA_CERTS && existsSync(process.env.NODE_EXTRA_CA_CERTS) ? process.env.NODE_EXTRA_CA_CERTS : undefined;
const HOST_CA_IN_ROOT = '/etc/check-docker-host-ca.crt';
/**
 * Where this machine's npm builds native modules against local Node headers (npm config nodedir:
 * no download from nodejs.org or GitHub here), the roots do the same with the same headers, put
 * where the node image has its own (/usr/local/include/node). better-sqlite3 is then compiled by
 * the deps stage's compilers instead of fetched prebuilt.
 */
const HOST_NODEDIR = ((): string | undefined => {
  const dir = spawnSync('npm', ['config', 'get', 'nodedir'], { encoding: 'utf8' }).stdout?.trim();
  return dir && dir !== 'undefined' && existsSync(join(dir, 'include/node/node.h')) ? dir : undefined;
})();

/** The environment a RUN (or the image's command) sees: the image's PATH and HOME, then its ENV. */
function envFor(root: string, as: RunAs): string[] {
  const home = as.user === 'root' || as.user === '0' ? '/root' : (passwd(root, as.user)?.home ?? '/');
  const host = { ...(HOST_CA ? { NODE_EXTRA_CA_CERTS: HOST_CA_IN_ROOT } : {}), ...(HOST_NODEDIR ? { npm_config_nodedir: '/usr/local' } : {}) };
  return Object.entries({ PATH: IMAGE_PATH, HOME: home, ...host, ...as.env }).map(([k, v]) => `${k}=${v}`);
}

function passwd(root: string, user: string): { uid: number; gid: number; home: string } | undefined {
  for (const line of readFileSync(join(root, 'etc/passwd'), 'utf8').split('\n')) {
    const f = line.split(':');
    if (f[0] === user || f[2] === user) return { uid: Number(f[2]), gid: Number(f[3]), home: f[5]! };
  }
  return undefined;
}

/**
 * The argv that runs `argv` in `root` as Docker would run it in the container: its own mount
 * namespace with /proc and /dev (gone with the process), the host's resolver, then chroot as the
 * user in the workdir.
 */
function chrootArgv(root: string, as: RunAs, argv: string[]): string[] {
  const who = as.user === 'root' || as.user === '0' ? undefined : passwd(root, as.user);
  if (as.user !== 'root' && as.user !== '0' && !who) fail(`USER ${as.user}: no such user in the image`);
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const inner = ['cd', q(as.workdir), '&&', 'exec', ...argv.map(q)].join(' ');
  const script = [
    `mount -t proc proc ${q(join(root, 'proc'))}`,
    `mount --rbind /dev ${q(join(root, 'dev'))}`,
    `cp /etc/resolv.conf ${q(join(root, 'etc/resolv.conf'))}`,
    `exec chroot ${who ? `--userspec=${who.uid}:${who.gid} ` : ''}${q(root)} /usr/bin/env -i ${envFor(root, as).map(q).join(' ')} /bin/sh -c ${q(inner)}`,
  ].join(' && ');
  // no --fork: each exec replaces the last, so the process started is, in the end, the command
  // itself (tini), and a signal to it reaches the command as `docker stop`'s does
  return ['unshare', '--mount', '--propagation', 'private', '/bin/sh', '-c', script];
}

/** A shell command in the root (a RUN line); its output shows only when it fails. */
function inRoot(root: string, as: RunAs, command: string): void {
  const [cmd, ...argv] = chrootArgv(root, as, ['/bin/sh', '-c', command]);
  host(cmd!, argv);
}

// ---- the stages -----------------------------------------------------------------------------

function resolveIn(workdir: string, p: string): string {
  return isAbsolute(p) ? posix.normalize(p) : posix.join(workdir, p);
}

/** COPY src... dest: Docker's rules for the cases a Dockerfile here uses (files, directories' contents, `.`). */
function copyInto(root: string, fromDir: string, sources: string[], dest: string, workdir: string): void {
  const target = join(root, resolveIn(workdir, dest));
  const toDir = dest.endsWith('/') || dest === '.' || sources.length > 1;
  for (const src of sources) {
    const from = join(fromDir, src);
    if (!existsSync(from)) fail(`COPY ${src}: not in the ${fromDir === CONTEXT ? 'build context' : 'source'} (left out by .dockerignore?)`);
    if (lstatSync(from).isDirectory()) {
      mkdirSync(target, { recursive: true });
      for (const name of readdirSync(from)) cpSync(join(from, name), join(target, name), { recursive: true, verbatimSymlinks: true, force: true });
    } else {
      const to = toDir ? join(target, posix.basename(src)) : target;
      mkdirSync(dirname(to), { recursive: true });
      cpSync(from, to, { verbatimSymlinks: true, force: true });
    }
  }
}

interface Built { root: string; as: RunAs; meta: Record<string, string> }

function buildStage(stage: Stage, index: number, work: string, context: string, built: Map<string, Built>): Built {
  if (stage.from !== 'node:20-bookworm-slim') fail(`FROM ${stage.from}: this check stands in for node:20-bookworm-slim only`);
  const root = join(work, `stage-${index}${stage.name ? `-${stage.name}` : ''}`);
  const done = step(`stage ${index}${stage.name ? ` (${stage.name})` : ''}: FROM ${stage.from} (a clean bookworm root, Node ${process.versions.node})`);
  nodeImageRoot(root);
  done();
  const as: RunAs = { user: 'root', workdir: '/', env: {} };
  const meta: Record<string, string> = {};
  for (const s of stage.steps) {
    const label = `${s.word} ${s.rest.length > 100 ? `${s.rest.slice(0, 100)}…` : s.rest}`;
    switch (s.word) {
      case 'WORKDIR':
        as.workdir = resolveIn(as.workdir, s.rest);
        mkdirSync(join(root, as.workdir), { recursive: true });
        break;
      case 'ENV':
        for (const m of s.rest.matchAll(/(\w+)=("[^"]*"|\S+)/g)) as.env[m[1]!] = m[2]!.replace(/^"|"$/g, '');
        break;
      case 'USER':
        as.user = s.rest;
        break;
      case 'COPY': {
        const words = s.rest.split(/\s+/);
        const fromStage = words[0]!.startsWith('--from=') ? words.shift()!.slice('--from='.length) : undefined;
        if (words.some((w) => w.startsWith('--'))) fail(`line ${s.line}: COPY option not known to this check: ${s.rest}`);
        const dest = words.pop()!;
        const src = fromStage ? built.get(fromStage) : undefined;
        if (fromStage && !src) fail(`line ${s.line}: COPY --from=${fromStage}: no such stage before it`);
        const fromDir = src ? src.root : context;
        const sources = src ? words.map((w) => w.replace(/^\/+/, '')) : words;
        const finish = step(`line ${s.line}: ${label}`);
        copyInto(root, fromDir, sources, dest, as.workdir);
        finish();
        break;
      }
      case 'RUN': {
        const finish = step(`line ${s.line}: ${label}`);
        inRoot(root, as, s.rest);
        finish();
        break;
      }
      case 'VOLUME': case 'EXPOSE': case 'HEALTHCHECK': case 'ENTRYPOINT': case 'CMD':
        meta[s.word] = s.rest;
        break;
      default:
        fail(`line ${s.line}: ${s.word} is not known to this check (add it to scripts/check-docker.ts)`);
    }
  }
  const result = { root, as, meta };
  built.set(stage.name ?? String(index), result);
  built.set(String(index), result);
  return result;
}

// ---- the image, used --------------------------------------------------------------------------

/** Start the image's ENTRYPOINT + CMD in the final root; resolves with the URL it prints. */
async function useImage(image: Built): Promise<void> {
  const entry = JSON.parse(image.meta.ENTRYPOINT ?? '[]') as string[];
  const cmd = JSON.parse(image.meta.CMD ?? '[]') as string[];
  if (cmd.length === 0) fail('the image has no CMD');
  for (const dir of JSON.parse(image.meta.VOLUME ?? '[]') as string[]) {
    if (!existsSync(join(image.root, dir))) fail(`VOLUME ${dir} does not exist in the image`);
  }
  // PORT=0: the host's 3000 may be taken (the chroot shares this machine's network).
  const as: RunAs = { ...image.as, env: { ...image.as.env, PORT: '0' } };
  const done = step(`the image as ${as.user}: ${[...entry, ...cmd].join(' ')}`);
  const [c, ...a] = chrootArgv(image.root, as, [...entry, ...cmd]);
  const child = spawn(c!, a, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { out += d; });
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  try {
    const port = await new Promise<string>((resolve, reject) => {
      const check = () => {
        const m = /listening on .*:(\d+)|local chat at http:\/\/[^:]+:(\d+)\//.exec(out);
        if (m) resolve(m[1] ?? m[2]!);
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      void exited.then((code) => reject(new CheckFailed(`the image's command exited (${code}) before it listened:\n${tail(out)}`)));
    });
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    if (!health.ok) fail(`/healthz answered ${health.status}`);
    process.stdout.write(`  /healthz answers ${health.status} on port ${port}\n`);
    const hc = /CMD\s+(\[.*\])$/.exec(image.meta.HEALTHCHECK ?? '')?.[1];
    if (hc) {
      const [hcmd, ...hargv] = chrootArgv(image.root, { ...as, env: { ...as.env, PORT: port } }, JSON.parse(hc) as string[]);
      host(hcmd!, hargv);
      process.stdout.write('  the HEALTHCHECK command exits 0\n');
    }
    const [rcmd, ...rargv] = chrootArgv(image.root, as, ['node', 'bin/turnbridge.js', 'run', 'profiles/echo/profile.yaml', '--message', 'hi from the image']);
    const answer = host(rcmd!, rargv).trim();
    if (answer !== 'You said: hi from the image') fail(`turnbridge run in the image answered ${JSON.stringify(answer)}`);
    process.stdout.write(`  turnbridge run with the echo profile: ${answer}\n`);
    child.kill('SIGTERM');
    const code = await exited;
    if (code !== 0) fail(`SIGTERM: the image's command exited ${code}:\n${tail(out)}`);
    process.stdout.write('  SIGTERM: exit 0\n');
    done();
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

// ---- main -------------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) fail('run as root on Linux (chroot and mount need it): sudo npm run check:docker');
  for (const tool of ['debootstrap', 'unshare', 'chroot', 'tar']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) fail(`${tool} is not installed${tool === 'debootstrap' ? ' (apt-get install debootstrap)' : ''}`);
  }
  const stages = parseDockerfile(readFileSync(join(CONTEXT, 'Dockerfile'), 'utf8'));
  const work = mkdtempSync(join(tmpdir(), 'tb-check-docker-'));
  const began = Date.now();
  try {
    const context = contextCopy(join(work, 'context'));
    process.stdout.write(`build context: ${CONTEXT} less .dockerignore\n`);
    if (HOST_CA) process.stdout.write(`this machine's CA bundle (NODE_EXTRA_CA_CERTS=${HOST_CA}) is given to Node in the roots\n`);
    if (HOST_NODEDIR) process.stdout.write(`this machine's npm builds native modules against local Node headers (nodedir ${HOST_NODEDIR}): so do the roots\n`);
    const built = new Map<string, Built>();
    let last: Built | undefined;
    stages.forEach((s, i) => { last = buildStage(s, i, work, context, built); });
    await useImage(last!);
    process.stdout.write(`check:docker: the Dockerfile's ${stages.length} stages built and the image ran, in ${Math.round((Date.now() - began) / 1000)} s\n`);
  } finally {
    if (args.has('--keep')) process.stdout.write(`the roots are kept in ${work}\n`);
    else rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`check:docker failed: ${err instanceof CheckFailed ? err.message : (err as Error).stack}\n`);
  process.exit(1);
});
