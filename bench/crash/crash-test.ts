/**
 * Crash test (issue 21.1): the built server under write load from several clients over HTTP with
 * Bearer tokens (create, append, turn begin/finalize, rename, archive, delete, branch.retry, chat
 * turns and chat retries against the project's test model, and exchanges recorded by the proxy
 * from that model as upstream on all three wires; sessions bound to each client's project, whose
 * turns write a file so the agent commit runs in the project's git), killed with SIGKILL at random moments,
 * restarted each time. After every restart it checks what DESIGN §2 promises: every JSON file
 * parses, every acknowledged turn commit is in git with the nodes acknowledged before it, every
 * acknowledged append (a chat reply once its turn ended, a proxied exchange once its recording
 * shows) is on disk, every acknowledged rename and (un)archive is what meta.json keeps (or the one
 * a kill cut off, which may have happened), the registry (as session.list reports it) equals every meta.json, no session
 * lost, duplicated or half-deleted, `git fsck` clean on the repositories touched and on every
 * project's, every acknowledged agent commit on its project's branch with its file, and, once the
 * search index has caught up, every acknowledged message is found by search and a deleted
 * session by nothing.
 *
 *   node --import tsx bench/crash/crash-test.ts [--kills 50] [--port 4310] [--model-port 4311] [--seed 1]
 *
 * Prints one summary line (lost=: acknowledged work gone; violations=: broken invariants) and
 * exits 1 on any loss or violation. Needs `npm run build` first.
 *
 * This file starts, kills and restarts the server; crash-workload.ts writes, crash-verify.ts
 * checks after each restart, and they share a CrashRun (crash-run.ts) holding what crash-model.ts
 * tracks.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type ServerProcess } from '../../e2e/fixtures/server-process.js';
import { AuthStore } from '../../lib/auth/index.js';
import { startModelServer, type ModelServer } from '../../lib/llm/testing/model-server.js';
import { call } from './crash-client.js';
import { git } from './crash-git.js';
import type { Client, CrashFigures, CrashOptions } from './crash-model.js';
import { createCrashRun, type CrashRun } from './crash-run.js';
import { verifyAfterRestart } from './crash-verify.js';
import { drive } from './crash-workload.js';

export type { CrashFigures, CrashOptions } from './crash-model.js';

/** Three users and `count` clients dealt out among them in turn (of four, the first user has two), tokens made before the server starts. */
async function createClients(dataDir: string, count: number): Promise<Client[]> {
  const auth = new AuthStore(join(dataDir, 'auth'));
  const users: { id: string; token: string }[] = [];
  for (let i = 0; i < 3; i++) {
    const user = await auth.users.create({ email: `crash${i}@crash.test`, password: 'crash password long', admin: i === 0 });
    users.push({ id: user.id, token: (await auth.tokens.create(user.id, { name: 'crash' })).token });
  }
  auth.flushSync();
  return Array.from({ length: count }, (_, index) => ({ index, userId: users[index % users.length]!.id, token: users[index % users.length]!.token }));
}

/** Each client's project: a repository the person made in the workspace, then registered. */
async function createProjects(run: CrashRun): Promise<void> {
  for (const client of run.clients) {
    const dir = join(run.dataDir, 'workspaces', client.userId, `crash-p${client.index}`);
    mkdirSync(dir, { recursive: true });
    for (const args of [['init', '-q', '-b', 'main'], ['-c', 'user.name=crash person', '-c', 'user.email=person@crash.test', 'commit', '-q', '--allow-empty', '-m', 'first']]) {
      const done = git(dir, args);
      if (!done.ok) throw new Error(`git ${args[0]} in ${dir}: ${done.output}`);
    }
    const created = (await call(run, client, 'project.create', { path: dir, name: `crash p${client.index}` })) as { id: string; path: string };
    run.projects.set(client.index, { id: created.id, dir: created.path, commits: [] });
  }
}

export async function runCrashTest(options: CrashOptions): Promise<CrashFigures> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const scratch = options.scratch ?? tmpdir();
  mkdirSync(scratch, { recursive: true });
  const dataDir = mkdtempSync(join(scratch, 'crash-'));
  const run = createCrashRun(options, dataDir, await createClients(dataDir, options.clients ?? 4));
  const { figures } = run;

  let server: ServerProcess | null = null;
  const model: ModelServer = await startModelServer(options.modelPort ?? options.port + 1);
  const env = {
    OPENPROGRAM_LLM_BASE_URL: model.url,
    OPENPROGRAM_LLM_MODEL: 'test-model',
    OPENPROGRAM_LLM_TITLE_MODEL: 'test-title-model',
    OPENPROGRAM_PROXY_OPENAI_URL: model.url,
    OPENPROGRAM_PROXY_ANTHROPIC_URL: model.root,
  };
  const start = async () => {
    run.controller = new AbortController();
    server = startServer({ port: options.port, host: '127.0.0.1', dataDir, runtime: 'node', env });
    await server.ready(120_000);
  };
  try {
    await start();
    await createProjects(run);
    for (let round = 1; round <= options.kills; round++) {
      const stop = { stopped: false };
      const drivers = run.clients.map((client) => drive(run, client, stop));
      // Early rounds die soon after start-up (recovery mid-flight), later ones under steady load.
      await new Promise((resolve) => setTimeout(resolve, 500 + Math.floor(run.random() * 3_500)));
      server!.child.kill('SIGKILL');
      await server!.exited;
      stop.stopped = true;
      run.controller.abort();
      await Promise.all(drivers);
      figures.kills++;
      await start();
      const before = figures.problems.length;
      await verifyAfterRestart(run, round);
      for (const problem of figures.problems.slice(before)) log(`crash: ${problem}`);
      if (round % 10 === 0) log(`crash: ${round}/${options.kills} kills, ${figures.acked} acknowledged, ${figures.lost} lost, ${figures.violations} violations`);
    }
  } finally {
    const current = server as ServerProcess | null;
    if (current) await current.stop('SIGTERM');
    await model.close();
  }
  for (const session of run.sessions.values()) {
    if (session.deleted === 'acked') continue;
    figures.sessions++;
    figures.appends += session.nodes.length;
    figures.commits += session.commits.length;
  }
  for (const [reason, count] of [...run.refusals].sort((a, b) => b[1] - a[1]).slice(0, 8)) log(`crash: refused ${count}× ${reason}`);
  if (figures.lost === 0 && figures.violations === 0) rmSync(dataDir, { recursive: true, force: true });
  else log(`crash: data directory kept in ${dataDir}`);
  return figures;
}

export function crashSummary(figures: CrashFigures): string {
  return (
    `crash: kills=${figures.kills} ops=${figures.ops} acked=${figures.acked} sessions=${figures.sessions} appends=${figures.appends} commits=${figures.commits} ` +
    `chats=${figures.chats} proxied=${figures.proxied} retries=${figures.retries} updates=${figures.updates} project_commits=${figures.projectCommits} project_skipped=${figures.projectSkipped} searched=${figures.searched} search_stale=${figures.searchStale} refused=${figures.refused} ` +
    `lost=${figures.lost} violations=${figures.violations} 5xx=${figures.errors5xx}`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string, fallback: number) => {
    const at = process.argv.indexOf(`--${name}`);
    return at >= 0 ? Number(process.argv[at + 1]) : fallback;
  };
  const port = arg('port', Number(process.env['CRASH_PORT'] ?? 3290));
  const figures = await runCrashTest({ kills: arg('kills', 50), port, modelPort: arg('model-port', port + 1), seed: arg('seed', 1) });
  process.stdout.write(`${crashSummary(figures)}\n`);
  process.exit(figures.lost === 0 && figures.violations === 0 ? 0 : 1);
}
