/**
 * DESIGN §9's export figures, on the built server over HTTP (needs `npm run build`):
 * `export_rss_growth_mb_10k`, the server's memory growth (its process tree's RSS, sampled while
 * the bytes flow) while the JSON export and then the zip of a 10,000-turn session download; and
 * `export_bundle_ms_10k`, the time of that session's git bundle, request to last byte.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AuthStore } from '../lib/auth/index.js';
import { repack } from '../lib/store/repo/repack.js';
import { SessionStore } from '../lib/store/index.js';
import { scratchDir } from './scratch.js';
import { startServer, treeRssMb } from './server-bench.js';
import { p50, round } from './store-bench.js';
import { requireBuild } from './figures.js';

const PORT = Number(process.env['BENCH_PORT'] ?? 3199);
const BASE = `http://127.0.0.1:${PORT}`;
const SESSION = 'large';
const TURNS = 10_000;
/** ~1.5 KB a message, 20,000 messages: a JSON export of ~35 MB, which built whole would show. */
const TEXT = 'The quick brown fox jumps over the lazy dog. '.repeat(34);
const SEQ_WIDTH = 6;
// The store's own author of session commits (lib/store/repo/session-git.ts).
const AUTHOR = 'OpenProgram <openprogram@local>';

function nodeJson(id: string, seq: number, role: 'user' | 'llm', predecessor: string | null, createdAt: number, text: string): Buffer {
  return Buffer.from(JSON.stringify({ id, created_at: createdAt, seq, role, name: '', input: null, output: text, caller: '', predecessor, reads: [], metadata: {} }));
}

/**
 * 10,000 turn commits, one per turn (a question and its answer), in the store's layout: the
 * session is made by the store (its repo, meta.json, the "session init" commit), then
 * `git fast-import` writes the turns onto its branch, one pack whose history trees are deltas of
 * each other. Through the store that is some 10,000 × 45 KB-on-average trees written and hashed
 * one turn at a time (minutes); its import path builds every tree whole in memory (gigabytes).
 * The node files and the final meta.json go to disk beside, and index.json is removed so the
 * server's start-up rebuilds the registry from that meta.json.
 */
async function seedTenThousandTurns(stateDir: string, workspaceRoot: string): Promise<void> {
  const store = await SessionStore.open({ stateDir, workspaceRoot });
  await store.createSession({ id: SESSION, title: 'Ten thousand turns' });
  await store.close();
  const dir = join(stateDir, 'sessions', SESSION);
  const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as Record<string, unknown>;
  // Commit dates are whole seconds; meta.json keeps fractions.
  const start = Math.floor(Number(meta['created_at']));
  mkdirSync(join(dir, 'history'), { recursive: true });

  const git = spawn('git', ['fast-import', '--quiet', '--done'], { cwd: dir, stdio: ['pipe', 'inherit', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => git.once('exit', resolve));
  // A git that stops reading has said why on stderr; its exit code is the error thrown below.
  git.stdin.on('error', () => {});
  const write = (chunk: string | Buffer): Promise<void> | void => {
    if (git.exitCode !== null) throw new Error(`git fast-import exited with ${git.exitCode}`);
    if (!git.stdin.write(chunk)) return new Promise((resolve) => git.stdin.once('drain', () => resolve()));
  };
  const data = (bytes: Buffer): Buffer => Buffer.concat([Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n')]);
  let previous: string | null = null;
  for (let turn = 0; turn < TURNS; turn++) {
    const at = start + turn + 1;
    const userId = `u${turn}`;
    const answerId = `a${turn}`;
    const question = nodeJson(userId, 2 * turn, 'user', previous, at, `${turn} ${TEXT}`);
    const answer = nodeJson(answerId, 2 * turn + 1, 'llm', userId, at, `${turn} ${TEXT}`);
    const names = [`${String(2 * turn).padStart(SEQ_WIDTH, '0')}-u-${userId}.json`, `${String(2 * turn + 1).padStart(SEQ_WIDTH, '0')}-a-${answerId}.json`];
    writeFileSync(join(dir, 'history', names[0]!), question);
    writeFileSync(join(dir, 'history', names[1]!), answer);
    Object.assign(meta, { head_id: answerId, updated_at: at, turn_count: turn + 1, preview: `${turn} ${TEXT}`.slice(0, 120) });
    const message = Buffer.from(`turn: ${turn} The quick brown fox`);
    const parts: Buffer[] = [
      Buffer.from(`commit refs/heads/main\nauthor ${AUTHOR} ${at} +0000\ncommitter ${AUTHOR} ${at} +0000\n`),
      data(message),
      Buffer.from(turn === 0 ? 'from refs/heads/main^0\nM 100644 inline workdir/.gitkeep\ndata 0\n\n' : ''),
      Buffer.from(`M 100644 inline history/${names[0]}\n`),
      data(question),
      Buffer.from(`M 100644 inline history/${names[1]}\n`),
      data(answer),
      Buffer.from('M 100644 inline meta.json\n'),
      data(Buffer.from(JSON.stringify(meta))),
    ];
    await write(Buffer.concat(parts));
    previous = answerId;
  }
  await write('done\n');
  git.stdin.end();
  const code = await exited;
  if (code !== 0) throw new Error(`git fast-import exited with ${code}`);
  writeFileSync(join(dir, 'meta.json'), JSON.stringify(meta));
  rmSync(join(stateDir, 'sessions', 'index.json'), { force: true });
  // Through the store, a session this long has been fully repacked many times over (every 8
  // incremental packs of 1 MB of loose objects): one full pack with its bitmap, as it would be.
  await repack(dir, { full: true });
}

function get(path: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${BASE}${path}`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

/**
 * One download read to its end by a client that takes its time (a pause after every chunk, as
 * a real network would), so the server's backpressure is what keeps its memory flat; `onChunk`
 * runs as bytes arrive. The bytes counted, the milliseconds from request to last byte.
 */
function download(path: string, token: string, onChunk: () => void = () => {}): Promise<{ bytes: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    http
      .get(`${BASE}${path}`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`${path}: ${res.statusCode}`));
          res.resume();
          return;
        }
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          onChunk();
          res.pause();
          setImmediate(() => res.resume());
        });
        res.on('end', () => resolve({ bytes, ms: performance.now() - start }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

export async function benchExport(): Promise<Record<string, number>> {
  requireBuild('the export figures');
  const dataDir = scratchDir('em-bench-export-');
  const auth = new AuthStore(join(dataDir, 'auth'));
  const user = await auth.users.create({ email: 'export@bench.test', password: 'bench password long', admin: true });
  const { token } = await auth.tokens.create(user.id, { name: 'bench' });
  auth.flushSync();
  const stateDir = join(dataDir, 'users', user.id);
  const workspaceRoot = join(dataDir, 'workspaces', user.id);
  mkdirSync(workspaceRoot, { recursive: true });
  const seedStart = performance.now();
  await seedTenThousandTurns(stateDir, workspaceRoot);
  process.stderr.write(`bench: ${TURNS} turns seeded in ${Math.round(performance.now() - seedStart)} ms\n`);

  let server: ChildProcess | null = null;
  try {
    server = await startServer(dataDir);
    const pid = server.pid!;
    // The session as the server has it once opened (list, get, its branch): the growth
    // measured is the export's own, not the first read of the session.
    const listed = await get(`/api/trpc/session.list?input=${encodeURIComponent(JSON.stringify({ limit: 50 }))}`, token);
    if (listed.status !== 200 || !listed.body.includes(`"${SESSION}"`)) throw new Error(`session.list: ${listed.status} ${listed.body.slice(0, 200)}`);
    const got = await get(`/api/trpc/session.get?input=${encodeURIComponent(JSON.stringify({ id: SESSION }))}`, token);
    const turnCount = /"turnCount":(\d+)/.exec(got.body)?.[1];
    if (got.status !== 200 || Number(turnCount) !== TURNS) throw new Error(`session.get: ${got.status}, turnCount ${turnCount}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const before = treeRssMb(pid);
    let peak = before;
    let lastSample = 0;
    // Sampled as bytes arrive (at most every 20 ms: a walk of /proc costs), and on a timer
    // for the stretches where none do.
    const sample = (): void => {
      const now = performance.now();
      if (now - lastSample < 20) return;
      lastSample = now;
      peak = Math.max(peak, treeRssMb(pid));
    };
    const timer = setInterval(sample, 50);
    const json = await download(`/api/export/${SESSION}?format=json`, token, sample);
    const zip = await download(`/api/export/all.zip?ids=${SESSION}`, token, sample);
    clearInterval(timer);
    peak = Math.max(peak, treeRssMb(pid));
    if (json.bytes < 25 * 1024 * 1024) throw new Error(`the JSON export is only ${json.bytes} bytes`);
    // The zip deflates the JSON (its repeated text to ~2 %): present, not its size, is the check.
    if (zip.bytes < 256 * 1024) throw new Error(`the zip is only ${zip.bytes} bytes`);
    process.stderr.write(`bench: export json ${Math.round(json.bytes / 1024 / 1024)} MB in ${Math.round(json.ms)} ms, zip ${Math.round(zip.bytes / 1024 / 1024)} MB in ${Math.round(zip.ms)} ms; RSS ${Math.round(before)} → peak ${Math.round(peak)} MB\n`);

    const bundles: number[] = [];
    for (let i = 0; i < 3; i++) {
      const bundle = await download(`/api/export/${SESSION}?format=bundle`, token);
      if (bundle.bytes < 1024 * 1024) throw new Error(`the bundle is only ${bundle.bytes} bytes`);
      bundles.push(bundle.ms);
    }
    process.stderr.write(`bench: bundles ${bundles.map((ms) => Math.round(ms)).join(', ')} ms\n`);
    return {
      export_rss_growth_mb_10k: round(peak - before),
      export_bundle_ms_10k: round(p50(bundles)),
    };
  } finally {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
  }
}
