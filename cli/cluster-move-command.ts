import { join } from 'node:path';
import { isUserId, UserStore } from '../lib/auth/index.js';
import { createPool } from '../lib/cluster/db.js';
import { findUserIdByEmail } from '../lib/cluster/pg-auth-backend.js';
import { MOVE_STEPS, MoveError, moveJournal, openMover, type MoveEngine, type MoveProgress, type MoveRecord } from '../lib/cluster/move/index.js';
import { CliError } from './backend.js';

interface Output {
  out(line: string): void;
  err(line: string): void;
}

interface MoveValues {
  json?: boolean;
  resume?: string;
  rollback?: string;
}

const USAGE = 'usage: entity-memory cluster move <user> <instance> | --resume <move> | --rollback <move> [--json]';

/**
 * A user id, or the id of the user with this email: in cluster mode users live in Postgres
 * (OPENPROGRAM_CLUSTER_DB), else in the data directory's users.
 */
async function userIdOf(dataDir: string, user: string, env: NodeJS.ProcessEnv): Promise<string> {
  if (isUserId(user)) return user;
  const databaseUrl = env['OPENPROGRAM_CLUSTER_DB']?.trim();
  if (databaseUrl) {
    const pool = createPool(databaseUrl, 1);
    let id: string | null;
    try {
      id = await findUserIdByEmail(pool, user);
    } catch (error) {
      throw new CliError(`cluster move: cannot look ${user} up in OPENPROGRAM_CLUSTER_DB: ${(error as Error).message}`, 'unavailable');
    } finally {
      await pool.end();
    }
    if (!id) throw new CliError(`no user ${user} in OPENPROGRAM_CLUSTER_DB (give a user id or a user's email)`, 'not_found');
    return id;
  }
  const found = new UserStore(join(dataDir, 'auth')).findByEmail(user);
  if (!found) throw new CliError(`no user ${user} (give a user id or the email of a user of ${dataDir})`, 'not_found');
  return found.id;
}

function progressLine(progress: MoveProgress): string {
  const number = MOVE_STEPS.indexOf(progress.step) + 1;
  const finished = progress.move.finished.at(-1);
  const took = progress.phase === 'done' && finished?.step === progress.step ? ` (${finished.ms} ms)` : '';
  return `[${number}/${MOVE_STEPS.length}] ${progress.step} ${progress.phase === 'start' ? '…' : `done${took}`}`;
}

function summary(move: MoveRecord): string {
  const outcome = move.status === 'done' ? `moved ${move.userId} from ${move.from} to ${move.to} (epoch ${move.epoch + 1})` : `move ${move.id} ${move.status}: ${move.userId} stays on ${move.from}`;
  return `${outcome}${move.freezeMs !== undefined ? `; writes were refused for ${move.freezeMs} ms` : ''}\nmove ${move.id}`;
}

/**
 * `cluster move`: one line per step (or JSON lines with --json), the result, and how to go on
 * after a failure. With OPENPROGRAM_CLUSTER_DB the mover flips Postgres' user_shard (what the
 * instances and HAProxy's map sync follow); the journal stays in this data directory.
 */
export async function runClusterMove(dataDir: string, args: string[], values: MoveValues, output: Output, env: NodeJS.ProcessEnv): Promise<void> {
  const modes = [args.length > 0, values.resume !== undefined, values.rollback !== undefined].filter(Boolean).length;
  if (modes !== 1 || (args.length > 0 && args.length !== 2)) throw new CliError(`give a user and an instance, or --resume <move>, or --rollback <move>\n\n${USAGE}`, 'bad_input');
  let engine: MoveEngine;
  try {
    engine = openMover({
      dataDir,
      env,
      onProgress: (progress) =>
        values.json ? output.out(JSON.stringify({ move: progress.move.id, step: progress.step, phase: progress.phase })) : output.err(progressLine(progress)),
    });
  } catch (error) {
    if (error instanceof MoveError) throw new CliError(error.message, 'bad_input');
    throw error;
  }
  try {
    await runMove(engine, dataDir, args, values, output, env);
  } finally {
    await engine.close();
  }
}

async function runMove(engine: MoveEngine, dataDir: string, args: string[], values: MoveValues, output: Output, env: NodeJS.ProcessEnv): Promise<void> {
  let move: MoveRecord;
  const userId = args.length > 0 ? await userIdOf(dataDir, args[0]!, env) : null;
  try {
    if (values.resume !== undefined) move = await engine.resume(values.resume);
    else if (values.rollback !== undefined) move = await engine.rollback(values.rollback);
    else move = await engine.start(userId!, args[1]!);
  } catch (error) {
    // Postgres or an instance out of reach: said as it is, not as a crash.
    if (!(error instanceof MoveError)) throw new CliError(`cluster move: ${(error as Error).message}`, 'unavailable');
    const open = values.resume ?? values.rollback ?? (userId ? moveJournal(dataDir).openMoveOf(userId)?.id : null) ?? null;
    const hint = error.code === 'failed' ? `\nthe move stopped; run \`entity-memory cluster move --resume ${open ?? '<move>'}\` or \`--rollback ${open ?? '<move>'}\`` : '';
    throw new CliError(`${error.message}${hint}`, error.code === 'bad_input' ? 'bad_input' : error.code === 'conflict' ? 'refused' : 'unavailable');
  }
  if (values.json) output.out(JSON.stringify({ result: move }));
  else output.out(summary(move));
}
