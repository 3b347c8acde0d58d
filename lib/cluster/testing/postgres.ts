import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway Postgres for tests: initdb and pg_ctl in a temp directory, on loopback, trust auth. */
export interface TestPostgres {
  url: string;
  port: number;
  dir: string;
  stop(): void;
}

/** Debian's binaries (postgresql-15 or any other major), else whatever PATH has. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return join(root, majors[0], 'bin');
  }
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  return found ? found.replace(/\/initdb$/, '') : null;
}

/** A free loopback port in [from, to] (the machine's test ranges are shared). */
export async function freePort(from: number, to: number): Promise<number> {
  for (let port = from; port <= to; port += 1) {
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port in ${from}-${to}`);
}

/** initdb refuses to run as root: then the commands run as the postgres user (or nobody), owning the directory. */
function runAs(): { uid: number; gid: number; name: string } | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    const result = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    if (result.status === 0) {
      const gid = Number(spawnSync('id', ['-g', name], { encoding: 'utf8' }).stdout.trim());
      return { uid: Number(result.stdout.trim()), gid, name };
    }
  }
  throw new Error('running as root, and neither a postgres nor a nobody user exists to run initdb as');
}

export async function startTestPostgres(options: { port?: number; portRange?: [number, number]; prefix?: string } = {}): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('Postgres is not installed: apt-get install -y postgresql (scripts/ensure-cluster-tools.mjs does it)');
  const port = options.port ?? (await freePort(...(options.portRange ?? [5000, 5099])));
  const dir = mkdtempSync(join(tmpdir(), options.prefix ?? 'cluster-core-pg-'));
  const user = runAs();
  if (user) chownSync(dir, user.uid, user.gid);
  const run = (command: string, args: string[]) => {
    const [file, fullArgs] = user ? ['runuser', ['-u', user.name, '--', join(bin, command), ...args]] : [join(bin, command), args];
    execFileSync(file, fullArgs, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'em', '--auth=trust', '-E', 'UTF8', '--no-sync', '--locale=C']);
  // Durability is not under test here: fsync off keeps the machine's shared disk quiet.
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  run('pg_ctl', ['-D', data, '-o', serverOptions, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  let stopped = false;
  return {
    url: `postgres://em@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already gone
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
