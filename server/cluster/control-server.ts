import { timingSafeEqual } from 'node:crypto';
import { CLUSTER_SECRET_HEADER, CONTROL_PREFIX, isControlOperation, MoveError, runControlOperation } from '@/lib/cluster/move/index';
import { instanceControl } from './instance-runtime';

export { CONTROL_PREFIX };

function secretMatches(given: string | null): boolean {
  const secret = process.env.OPENPROGRAM_CLUSTER_SECRET ?? '';
  if (secret.length < 16 || !given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `POST /api/cluster/control/<op>`: the server of this instance's side of a move, for the mover's
 * `ControlClient` only; the operations and their bodies are `lib/cluster/move/control-contract.ts`.
 * Off (404) unless OPENPROGRAM_CLUSTER_SECRET is set (16 characters at least); the header must carry it.
 */
export async function answerControl(path: string, method: string, headers: Headers, body: string): Promise<{ status: number; body: unknown }> {
  if (!process.env.OPENPROGRAM_CLUSTER_SECRET) return { status: 404, body: { error: 'cluster control is off (set OPENPROGRAM_CLUSTER_SECRET)' } };
  if (!secretMatches(headers.get(CLUSTER_SECRET_HEADER))) return { status: 401, body: { error: `send ${CLUSTER_SECRET_HEADER} with the cluster secret` } };
  if (method !== 'POST') return { status: 405, body: { error: 'use POST' } };
  const op = path.slice(CONTROL_PREFIX.length);
  if (!isControlOperation(op)) return { status: 404, body: { error: `no control operation ${JSON.stringify(op)}` } };
  let json: unknown;
  try {
    json = JSON.parse(body || '{}');
  } catch {
    return { status: 400, body: { error: 'the body is not JSON', code: 'bad_input' } };
  }
  const control = await instanceControl();
  try {
    const outcome = await runControlOperation(control, op, json);
    if (!outcome.ok) return { status: 400, body: { error: outcome.message, code: 'bad_input' } };
    return { status: 200, body: { result: outcome.result ?? null } };
  } catch (error) {
    if (error instanceof MoveError) return { status: error.code === 'bad_input' ? 400 : error.code === 'conflict' ? 409 : 500, body: { error: error.message, code: error.code } };
    console.error(`[cluster] ${op} failed:`, error);
    return { status: 500, body: { error: `${op} failed: ${(error as Error).message}`, code: 'failed' } };
  }
}
