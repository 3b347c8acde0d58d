import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haproxyCommand } from '../../lib/cluster/haproxy-map';
import { freePort, startTestPostgres, type TestPostgres } from '../../lib/cluster/testing/postgres';
import { startServer, type ServerProcess } from '../fixtures/server-process';

/** The ports of this machine's cluster tests (Postgres, HAProxy and the instances). */
const PORT_RANGE: [number, number] = [Number(process.env.E2E_CLUSTER_PORT_FROM ?? 5020), Number(process.env.E2E_CLUSTER_PORT_TO ?? 5099)];

export const CLUSTER_ADMIN_EMAIL = 'admin@cluster.test';
export const CLUSTER_ADMIN_PASSWORD = 'cluster-admin-password';
/** The instances' control endpoint secret: what `cluster move` sends them. */
export const CLUSTER_SECRET = 'cluster-secret-for-the-e2e-movers';

export interface Instance {
  id: string;
  port: number;
  url: string;
  dataDir: string;
  process: ServerProcess;
}

export interface TestCluster {
  /** HAProxy's address: what users and agents are given */
  url: string;
  postgres: TestPostgres;
  instances: Map<string, Instance>;
  socketPath: string;
  mapPath: string;
  /** share link id → owner's user id: how HAProxy routes `/s/<id>` */
  linksMapPath: string;
  /** one HAProxy runtime API command */
  haproxy(command: string): Promise<string>;
  kill(instanceId: string): Promise<void>;
  restart(instanceId: string): Promise<void>;
  stop(): Promise<void>;
}

function spawnLogged(command: string, args: string[], env: Record<string, string>, label: string): { child: ChildProcess; output: () => string } {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal === null) console.error(`[cluster harness] ${label} exited ${code}:\n${text}`);
  });
  return { child, output: () => text };
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Postgres (initdb in a temp directory), two or three instances of the built app (`npm start`'s
 * serve.ts, each with its own data directory and port, in cluster mode), the map sync, and
 * HAProxy with the config the project ships (deploy/haproxy/haproxy.cfg), all on loopback.
 */
export async function startTestCluster(options: { instances?: number; /** more environment for every instance (a model server's address) */ env?: Record<string, string> } = {}): Promise<TestCluster> {
  const count = options.instances ?? 2;
  const scratch = mkdtempSync(join(process.env.E2E_SCRATCH_DIR ?? tmpdir(), 'cluster-core-e2e-'));
  const postgres = await startTestPostgres({ portRange: PORT_RANGE });
  const haproxyPort = await freePort(postgres.port + 1, PORT_RANGE[1]);
  const url = `http://127.0.0.1:${haproxyPort}`;
  const haproxyDir = join(scratch, 'haproxy');
  mkdirSync(haproxyDir, { recursive: true });
  const mapPath = join(haproxyDir, 'users.map');
  const linksMapPath = join(haproxyDir, 'links.map');
  const socketPath = join(haproxyDir, 'haproxy.sock');
  writeFileSync(mapPath, '');
  writeFileSync(linksMapPath, '');

  const ids = ['node-a', 'node-b', 'node-c'].slice(0, count);
  const ports: number[] = [];
  for (const _ of ids) ports.push(await freePort((ports.at(-1) ?? haproxyPort) + 1, PORT_RANGE[1]));
  const instances = new Map<string, Instance>();
  const children: Array<{ child: ChildProcess }> = [];

  const launch = async (id: string, port: number, dataDir: string, first: boolean): Promise<Instance> => {
    const instanceUrl = `http://127.0.0.1:${port}`;
    const processHandle = startServer({
      port,
      host: '127.0.0.1',
      dataDir,
      env: {
        ...options.env,
        OPENPROGRAM_CLUSTER_DB: postgres.url,
        OPENPROGRAM_INSTANCE_ID: id,
        OPENPROGRAM_INSTANCE_URL: instanceUrl,
        // Every instance builds its links on the address users are given.
        NEXTAUTH_URL: url,
        OPENPROGRAM_ADMIN_EMAIL: first ? CLUSTER_ADMIN_EMAIL : '',
        OPENPROGRAM_ADMIN_PASSWORD: first ? CLUSTER_ADMIN_PASSWORD : '',
        // HAProxy on loopback is the trusted proxy whose X-Forwarded-For counts.
        OPENPROGRAM_TRUST_PROXY: 'true',
        // The control endpoint a mover (`cluster move`) calls.
        OPENPROGRAM_CLUSTER_SECRET: CLUSTER_SECRET,
        ...options.env,
      },
    });
    await processHandle.ready(90_000);
    return { id, port, url: instanceUrl, dataDir, process: processHandle };
  };

  const stopAll = async () => {
    for (const instance of instances.values()) await instance.process.stop('SIGKILL').catch(() => undefined);
    for (const { child } of children) child.kill('SIGKILL');
    postgres.stop();
    rmSync(scratch, { recursive: true, force: true });
  };

  try {
    // One after the other: the first creates the admin, and placement sees every instance registered.
    for (const [index, id] of ids.entries()) {
      const dataDir = join(scratch, id);
      mkdirSync(dataDir, { recursive: true });
      instances.set(id, await launch(id, ports[index]!, dataDir, index === 0));
    }
    const mapSync = spawnLogged(
      process.execPath,
      ['cli/bin.mjs', 'cluster', 'map-sync', '--socket', socketPath, '--map', mapPath, '--links-map', linksMapPath],
      { OPENPROGRAM_CLUSTER_DB: postgres.url },
      'map-sync',
    );
    children.push(mapSync);
    const nodeAddress = (index: number) => (ports[index] ? `127.0.0.1:${ports[index]}` : '127.0.0.1:9');
    const haproxy = spawnLogged(
      'haproxy',
      ['-db', '-f', 'deploy/haproxy/haproxy.cfg'],
      { EM_HAPROXY_BIND: `127.0.0.1:${haproxyPort}`, EM_HAPROXY_DIR: haproxyDir, EM_NODE_A: nodeAddress(0), EM_NODE_B: nodeAddress(1), EM_NODE_C: nodeAddress(2) },
      'haproxy',
    );
    children.push(haproxy);
    await waitFor(async () => (await fetch(`${url}/api/health`)).ok, 'HAProxy');
    // The sync has written the map once it is running: the admin's entry is in.
    await waitFor(async () => /[0-9a-f]{16} /.test(await haproxyCommand(socketPath, `show map ${mapPath}`)), 'the first map sync');
  } catch (error) {
    await stopAll();
    throw error;
  }

  return {
    url,
    postgres,
    instances,
    socketPath,
    mapPath,
    linksMapPath,
    haproxy: (command) => haproxyCommand(socketPath, command),
    async kill(instanceId) {
      await instances.get(instanceId)!.process.stop('SIGKILL');
    },
    async restart(instanceId) {
      const old = instances.get(instanceId)!;
      instances.set(instanceId, await launch(instanceId, old.port, old.dataDir, false));
    },
    stop: stopAll,
  };
}
