import { clusterConfigFromEnv, createPool, type Pool } from '../lib/cluster/db.js';
import { HaproxyMapSync } from '../lib/cluster/haproxy-map.js';
import { CliError } from './backend.js';

/** `entity-memory cluster …`: talks to Postgres (OPENPROGRAM_CLUSTER_DB), not to a data directory. */
export interface ClusterCommandSpec {
  usage: string;
  summary: string;
  run(pool: Pool, context: ClusterContext): Promise<void>;
}

export interface ClusterContext {
  args: string[];
  values: { json?: boolean; socket?: string; map?: string; 'links-map'?: string };
  databaseUrl: string;
  out(line: string): void;
  err(line: string): void;
}

export interface ClusterStatus {
  instances: Array<{ id: string; url: string; weight: number; healthy: boolean | null; users: number }>;
  /** users whose move has begun and not ended (state moving or frozen) */
  moves: Array<{ userId: string; shard: string; epoch: number; state: string }>;
  unplaced: number;
}

export async function clusterStatus(pool: Pool): Promise<ClusterStatus> {
  const [instances, moves, unplaced] = await Promise.all([
    pool.query<{ id: string; url: string; weight: number; healthy: boolean | null; users: string }>(
      `SELECT i.id, i.url, i.weight, i.healthy, count(us.user_id) AS users
       FROM instance i LEFT JOIN user_shard us ON us.shard = i.id GROUP BY i.id ORDER BY i.id`,
    ),
    pool.query<{ user_id: string; shard: string; epoch: string; state: string }>("SELECT user_id, shard, epoch, state FROM user_shard WHERE state <> 'active' ORDER BY user_id"),
    pool.query<{ n: string }>('SELECT count(*) AS n FROM auth_user u WHERE NOT EXISTS (SELECT 1 FROM user_shard us WHERE us.user_id = u.id)'),
  ]);
  return {
    instances: instances.rows.map((row) => ({ id: row.id, url: row.url, weight: row.weight, healthy: row.healthy, users: Number(row.users) })),
    moves: moves.rows.map((row) => ({ userId: row.user_id, shard: row.shard, epoch: Number(row.epoch), state: row.state })),
    unplaced: Number(unplaced.rows[0]?.n ?? 0),
  };
}

export const CLUSTER_COMMANDS: Record<string, ClusterCommandSpec> = {
  'cluster status': {
    usage: 'cluster status [--json]',
    summary: 'instances (address, weight, health, users) and the moves under way, from OPENPROGRAM_CLUSTER_DB',
    async run(pool, { values, out }) {
      const status = await clusterStatus(pool);
      if (values.json) {
        out(JSON.stringify(status));
        return;
      }
      out(['instance', 'url', 'weight', 'health', 'users'].join('\t'));
      for (const row of status.instances) {
        out([row.id, row.url, String(row.weight), row.healthy === false ? 'down' : 'up', String(row.users)].join('\t'));
      }
      out('');
      if (status.moves.length === 0) out('no move under way');
      else {
        out(['moving user', 'from', 'epoch', 'state'].join('\t'));
        for (const move of status.moves) out([move.userId, move.shard, String(move.epoch), move.state].join('\t'));
      }
      if (status.unplaced > 0) out(`${status.unplaced} user(s) have no instance`);
    },
  },
  'cluster map-sync': {
    usage: 'cluster map-sync --socket <haproxy.sock> --map <users.map> [--links-map <links.map>]',
    summary: "keep HAProxy's user map equal to user_shard, and its links map to share_link (runs until stopped)",
    async run(pool, { values, databaseUrl, err }) {
      if (!values.socket || !values.map) throw new CliError('cluster map-sync needs --socket (HAProxy\'s stats socket) and --map (the map file the config names)\n\nusage: entity-memory cluster map-sync --socket <haproxy.sock> --map <users.map> [--links-map <links.map>]', 'bad_input');
      const sync = new HaproxyMapSync({ pool, databaseUrl, socketPath: values.socket, mapPath: values.map, linksMapPath: values['links-map'], log: (line) => err(`[map-sync] ${line}`) });
      await sync.start();
      err(`[map-sync] following user_shard into ${values.map}${values['links-map'] ? ` and share_link into ${values['links-map']}` : ''}`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve).once('SIGTERM', resolve);
      });
      await sync.stop();
    },
  },
};

/** Runs a `cluster …` command against OPENPROGRAM_CLUSTER_DB. */
export async function runClusterCommand(name: string, context: Omit<ClusterContext, 'databaseUrl'>, env: NodeJS.ProcessEnv): Promise<void> {
  const command = CLUSTER_COMMANDS[name];
  if (!command) throw new CliError(`unknown command: ${name}\n\nusage: entity-memory <command>  (see entity-memory help)`, 'bad_input');
  const databaseUrl = env.OPENPROGRAM_CLUSTER_DB?.trim();
  if (!databaseUrl) throw new CliError('cluster commands need OPENPROGRAM_CLUSTER_DB=postgres://… (the database the instances share)', 'bad_input');
  // The instance variables are not needed here; the URL is checked the same way.
  clusterConfigFromEnv({ OPENPROGRAM_CLUSTER_DB: databaseUrl, OPENPROGRAM_INSTANCE_ID: 'cli', OPENPROGRAM_INSTANCE_URL: 'http://127.0.0.1' });
  const pool = createPool(databaseUrl, 2);
  try {
    await command.run(pool, { ...context, databaseUrl });
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cluster: ${(error as Error).message}`, 'unavailable');
  } finally {
    await pool.end();
  }
}
