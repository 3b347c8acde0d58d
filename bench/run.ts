/**
 * npm run bench: one JSON object whose keys are DESIGN §9's names. Figures whose subject does
 * not exist yet are left out. OpenProgram's Python store cannot run here (no PyPI), so its
 * figures stay the ones DESIGN §9 records.
 *
 * Each benchmark runs in a process of its own: a heap left large by the previous one (the
 * 100,000-session registry) makes every later fork of git slower, and would be timed.
 * `npm run bench -- list server` runs only those; `npm run bench -- load --soak 3600` runs the
 * load for an hour (LOAD_SECONDS, read by bench/load-bench.ts) instead of its short default.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchAppendAndCommit, benchList, benchRebuild, benchRepoSize } from './store-bench.js';
import { benchProjectCommit } from './project-commit.js';
import { benchAgentProjectCommit } from './agent-project-commit-bench.js';
import { benchServer } from './server-bench.js';
import { benchSessionPage } from './session-page-bench.js';
import { benchRenderAbuse } from './render-abuse-bench.js';
import { benchTimeline } from './timeline-bench.js';
import { benchChat } from './chat-bench.js';
import { benchProxy } from './proxy-bench.js';
import { benchRegistry } from './registry-bench.js';
import { benchLive, benchSidebarDom, benchSidebarHtml } from './sidebar-bench.js';
import { benchAbuse } from './abuse-bench.js';
import { benchFairness } from './fairness-bench.js';
import { benchCli } from './cli-bench.js';
import { benchExport } from './export-bench.js';
import { checkFigures } from './figures.js';
import { scratchDirs } from './scratch.js';
import { benchSearch } from './search-bench.js';
import { benchChatGpt, benchClaudeCode } from './import-bench.js';
import { benchOpenProgramImport } from './openprogram-import-bench.js';
import { benchFilters } from './filters-bench.js';
import { benchCrash, benchFuzz } from './faults-bench.js';
import { benchMove } from './move-bench.js';
import { benchLoad } from './load-bench.js';
import { benchCluster, benchManyUsers } from './cluster-bench.js';
import { benchRedact } from './redact-bench.js';
import { benchProxyAbuse } from './proxy-abuse-bench.js';
import { benchTagFilter } from './tag-filter-bench.js';
import { benchUsage } from './usage-bench.js';
import { benchCompare } from './compare-bench.js';
import { benchBlame } from './blame-bench.js';

type Bench = () => Promise<Record<string, number>>;

const BENCHES: Record<string, Bench> = {
  list: benchList,
  'append+commit': benchAppendAndCommit,
  'repo size': benchRepoSize,
  rebuild: benchRebuild,
  registry: benchRegistry,
  'project commit': benchProjectCommit,
  'agent project commit': benchAgentProjectCommit,
  server: benchServer,
  'session page': benchSessionPage,
  'render abuse': benchRenderAbuse,
  timeline: benchTimeline,
  chat: benchChat,
  proxy: benchProxy,
  'sidebar html': benchSidebarHtml,
  'sidebar dom': benchSidebarDom,
  live: benchLive,
  abuse: benchAbuse,
  fairness: benchFairness,
  cli: benchCli,
  search: benchSearch,
  'import cc': benchClaudeCode,
  'import chatgpt': benchChatGpt,
  'import openprogram': benchOpenProgramImport,
  filters: benchFilters,
  export: benchExport,
  crash: benchCrash,
  fuzz: benchFuzz,
  move: benchMove,
  load: benchLoad,
  'many users': benchManyUsers,
  cluster: benchCluster,
  redact: benchRedact,
  'proxy abuse': benchProxyAbuse,
  'tag filter': benchTagFilter,
  usage: benchUsage,
  compare: benchCompare,
  blame: benchBlame,
};

const [flag, name] = process.argv.slice(2);
if (flag === '--one' && name) {
  // A child: run one benchmark, print its figures and its scratch directories as JSON.
  const bench = BENCHES[name];
  if (!bench) throw new Error(`unknown benchmark ${name}`);
  const figures = checkFigures(name, await bench());
  process.stdout.write(`${JSON.stringify({ figures, scratch: scratchDirs() })}\n`);
} else {
  const only = process.argv.slice(2);
  const soak = only.indexOf('--soak');
  if (soak >= 0) {
    const seconds = Number(only[soak + 1]);
    if (!Number.isFinite(seconds) || seconds <= 0) throw new Error('--soak takes the seconds to run the load for, e.g. --soak 3600');
    process.env['LOAD_SECONDS'] = String(seconds);
    only.splice(soak, 2);
  }
  const results: Record<string, number> = {};
  // Removed only after the last figure: deleting 100,000 files keeps the file system busy
  // (journal, discard) for a while after rm returns, which the next benchmark would time.
  const scratch: string[] = [];
  for (const benchName of Object.keys(BENCHES)) {
    if (only.length > 0 && !only.includes(benchName)) continue;
    // Let the previous benchmark's files reach the disk, so their writeback is not timed here.
    execFileSync('sync');
    process.stderr.write(`bench: ${benchName}…\n`);
    const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--one', benchName], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 16 * 1024 * 1024,
    });
    if (child.status !== 0) throw new Error(`benchmark ${benchName} failed (exit ${child.status})`);
    const lines = child.stdout.trim().split('\n');
    const answer = JSON.parse(lines[lines.length - 1]!) as { figures: Record<string, number>; scratch: string[] };
    Object.assign(results, answer.figures);
    scratch.push(...answer.scratch);
  }
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}
