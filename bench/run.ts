/**
 * npm run bench: one JSON object whose keys are DESIGN §9's names. Figures whose subject does
 * not exist yet are left out. OpenProgram's Python store cannot run here (no PyPI), so its
 * figures stay the ones DESIGN §9 records.
 */
import { execFileSync } from 'node:child_process';
import { benchAppendAndCommit, benchList, benchRebuild, benchRepoSize } from './store-bench.js';

type Bench = () => Promise<Record<string, number>>;

const benches: [string, Bench][] = [
  ['list', benchList],
  ['append+commit', benchAppendAndCommit],
  ['repo size', benchRepoSize],
  ['rebuild', benchRebuild],
];

async function optional(path: string, name: string): Promise<Bench | null> {
  try {
    const module = (await import(path)) as Record<string, Bench>;
    return module[name] ?? null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return null;
    throw error;
  }
}

const projectCommit = await optional('./project-commit.js', 'benchProjectCommit');
if (projectCommit) benches.push(['project commit', projectCommit]);
const server = await optional('./server-bench.js', 'benchServer');
if (server) benches.push(['server', server]);

const only = process.argv.slice(2);
const results: Record<string, number> = {};
for (const [name, bench] of benches) {
  if (only.length > 0 && !only.includes(name)) continue;
  // Let the previous bench's dirty pages reach the disk, so its writeback is not timed here.
  execFileSync('sync');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  process.stderr.write(`bench: ${name}…\n`);
  Object.assign(results, await bench());
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
