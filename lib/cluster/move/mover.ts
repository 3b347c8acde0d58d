import { join } from 'node:path';
import { MoveEngine, type MoveProgress } from './engine.js';
import { FileShardDirectory } from './file-directory.js';
import { HttpInstanceControl } from './http-control.js';
import { MoveJournal } from './journal.js';
import { MoveError, type ShardDirectoryPort } from './ports.js';

export interface MoverEnvironment {
  /** the mover's data directory: its journal is `<data>/cluster/moves` */
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** the Postgres directory (lib/cluster/shard-directory.ts) when cluster mode has one */
  directory?: ShardDirectoryPort;
  onProgress?: (progress: MoveProgress) => void;
}

/** The journal of the moves this data directory's mover made. */
export function moveJournal(dataDir: string): MoveJournal {
  return new MoveJournal(join(dataDir, 'cluster', 'moves'));
}

/**
 * A mover from the environment: the shard directory (given, or OPENPROGRAM_CLUSTER_DIRECTORY, a
 * JSON file), the instances' control endpoints (their url in the directory, OPENPROGRAM_CLUSTER_SECRET).
 */
export function openMover({ dataDir, env, directory, onProgress }: MoverEnvironment): MoveEngine {
  const secret = env['OPENPROGRAM_CLUSTER_SECRET'] ?? '';
  if (secret.length < 16) throw new MoveError('set OPENPROGRAM_CLUSTER_SECRET (16 characters at least, the same on every instance) to move users', 'bad_input');
  const file = env['OPENPROGRAM_CLUSTER_DIRECTORY'];
  const shards = directory ?? (file ? new FileShardDirectory(file) : null);
  if (!shards) throw new MoveError('no shard directory: set OPENPROGRAM_CLUSTER_DB (Postgres) or OPENPROGRAM_CLUSTER_DIRECTORY (a JSON file)', 'bad_input');
  return new MoveEngine({
    directory: shards,
    journal: moveJournal(dataDir),
    control: async (id) => {
      const instance = await shards.instance(id);
      if (!instance) throw new MoveError(`no instance ${id} in the shard directory`, 'bad_input');
      return new HttpInstanceControl(instance.url, secret);
    },
    onProgress,
  });
}
