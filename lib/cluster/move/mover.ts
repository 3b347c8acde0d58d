import { join } from 'node:path';
import { createPool } from '../db.js';
import { ShardDirectory } from '../shard-directory.js';
import { MoveEngine, type MoveProgress } from './engine.js';
import { FileShardDirectory } from './file-directory.js';
import { ControlClient } from './control-client.js';
import { MoveJournal } from './journal.js';
import { MoveError, type ShardDirectoryPort } from './ports.js';

export interface MoverEnvironment {
  /** the mover's data directory: its journal is `<data>/cluster/moves` */
  dataDir: string;
  env: Readonly<Record<string, string | undefined>>;
  /** a directory the caller already has (a running instance's ShardDirectory on its own pool) */
  directory?: ShardDirectoryPort;
  onProgress?: (progress: MoveProgress) => void;
}

/** The journal of the moves this data directory's mover made. */
export function moveJournal(dataDir: string): MoveJournal {
  return new MoveJournal(join(dataDir, 'cluster', 'moves'));
}

/** The directory the environment names, and what to close after the move. */
function directoryFromEnv(env: MoverEnvironment['env']): { directory: ShardDirectoryPort; close?: () => Promise<void> } {
  const databaseUrl = env['OPENPROGRAM_CLUSTER_DB']?.trim();
  const file = env['OPENPROGRAM_CLUSTER_DIRECTORY']?.trim();
  if (databaseUrl && file) {
    // Two truths would let a mover flip one while the instances and HAProxy follow the other.
    throw new MoveError('set OPENPROGRAM_CLUSTER_DB (Postgres) or OPENPROGRAM_CLUSTER_DIRECTORY (a JSON file), not both', 'bad_input');
  }
  if (databaseUrl) {
    if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new MoveError('OPENPROGRAM_CLUSTER_DB must be a postgres:// URL', 'bad_input');
    // Small: a mover runs one statement at a time, and every instance holds its own pool besides.
    const pool = createPool(databaseUrl, 2);
    return { directory: new ShardDirectory(pool), close: () => pool.end() };
  }
  if (file) return { directory: new FileShardDirectory(file) };
  throw new MoveError('no shard directory: set OPENPROGRAM_CLUSTER_DB (Postgres) or OPENPROGRAM_CLUSTER_DIRECTORY (a JSON file)', 'bad_input');
}

/**
 * A mover from the environment: the shard directory (given; else Postgres' `user_shard` when
 * OPENPROGRAM_CLUSTER_DB is set, which is what the instances and HAProxy's map sync follow; else
 * OPENPROGRAM_CLUSTER_DIRECTORY, a JSON file for clusters without Postgres), the instances'
 * control endpoints (their url in the directory, OPENPROGRAM_CLUSTER_SECRET). `close()` the
 * engine when done: it ends the Postgres pool this opened.
 */
export function openMover({ dataDir, env, directory, onProgress }: MoverEnvironment): MoveEngine {
  const secret = env['OPENPROGRAM_CLUSTER_SECRET'] ?? '';
  if (secret.length < 16) throw new MoveError('set OPENPROGRAM_CLUSTER_SECRET (16 characters at least, the same on every instance) to move users', 'bad_input');
  const { directory: shards, close } = directory ? { directory, close: undefined } : directoryFromEnv(env);
  return new MoveEngine({
    directory: shards,
    journal: moveJournal(dataDir),
    control: async (id) => {
      const instance = await shards.instance(id);
      if (!instance) throw new MoveError(`no instance ${id} in the shard directory`, 'bad_input');
      return new ControlClient(instance.url, secret);
    },
    onProgress,
    close,
  });
}
