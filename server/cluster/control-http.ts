import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { isUserId } from '@/lib/auth/index';
import { CLUSTER_SECRET_HEADER, MoveError } from '@/lib/cluster/move/index';
import { instanceControl } from './instance-runtime';

export const CONTROL_PREFIX = '/api/cluster/control/';

const userId = z.string().refine(isUserId, 'a user id is 16 hex digits');
const heads = z.record(z.string(), z.record(z.string(), z.string()));
const event = z.object({ id: z.string(), type: z.string(), data: z.unknown() });
const handoff = z.object({ boot: z.string().min(1).max(64), seq: z.number().int().min(0), events: z.array(event).max(100_000), adopted: z.record(z.string(), z.number().int()).optional() });
const BODIES = {
  describe: z.object({}),
  freeze: z.object({ userId, moveId: z.string().regex(/^[0-9a-z]{8,40}$/) }),
  unfreeze: z.object({ userId }),
  precheck: z.object({ userId }),
  verify: z.object({ userId, heads, sourceDataDir: z.string().min(1), fsckSkip: z.array(z.string().min(1)).optional() }),
  adopt: z.object({ userId, handoff }),
  release: z.object({ userId, owner: z.object({ id: z.string().min(1).max(200), url: z.string().max(2000), epoch: z.number().int() }) }),
  discard: z.object({ userId }),
} as const;
type Op = keyof typeof BODIES;

function secretMatches(given: string | null): boolean {
  const secret = process.env.OPENPROGRAM_CLUSTER_SECRET ?? '';
  if (secret.length < 16 || !given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `POST /api/cluster/control/<op>`: this instance's side of a move, for the mover only. Off (404)
 * unless OPENPROGRAM_CLUSTER_SECRET is set (16 characters at least); the header must carry it.
 */
export async function answerControl(path: string, method: string, headers: Headers, body: string): Promise<{ status: number; body: unknown }> {
  if (!process.env.OPENPROGRAM_CLUSTER_SECRET) return { status: 404, body: { error: 'cluster control is off (set OPENPROGRAM_CLUSTER_SECRET)' } };
  if (!secretMatches(headers.get(CLUSTER_SECRET_HEADER))) return { status: 401, body: { error: `send ${CLUSTER_SECRET_HEADER} with the cluster secret` } };
  if (method !== 'POST') return { status: 405, body: { error: 'use POST' } };
  const op = path.slice(CONTROL_PREFIX.length) as Op;
  if (!Object.hasOwn(BODIES, op)) return { status: 404, body: { error: `no control operation ${JSON.stringify(op)}` } };
  let json: unknown;
  try {
    json = JSON.parse(body || '{}');
  } catch {
    return { status: 400, body: { error: 'the body is not JSON', code: 'bad_input' } };
  }
  const parsed = BODIES[op].safeParse(json);
  if (!parsed.success) return { status: 400, body: { error: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; '), code: 'bad_input' } };
  // Checked against BODIES[op] above: each case reads what its schema requires.
  const input = parsed.data as {
    userId: string;
    moveId: string;
    heads: z.infer<typeof heads>;
    sourceDataDir: string;
    fsckSkip?: string[];
    handoff: z.infer<typeof handoff>;
    owner: { id: string; url: string; epoch: number };
  };
  const control = await instanceControl();
  try {
    const result = await (async () => {
      switch (op) {
        case 'describe':
          return control.describe();
        case 'freeze':
          return control.freeze(input.userId, input.moveId);
        case 'unfreeze':
          return control.unfreeze(input.userId);
        case 'precheck':
          return control.precheck(input.userId);
        case 'verify':
          return control.verify(input.userId, { heads: input.heads, sourceDataDir: input.sourceDataDir, ...(input.fsckSkip ? { fsckSkip: input.fsckSkip } : {}) });
        case 'adopt':
          return control.adopt(input.userId, input.handoff);
        case 'release':
          return control.release(input.userId, input.owner);
        case 'discard':
          return control.discard(input.userId);
      }
    })();
    return { status: 200, body: { result: result ?? null } };
  } catch (error) {
    if (error instanceof MoveError) return { status: error.code === 'bad_input' ? 400 : error.code === 'conflict' ? 409 : 500, body: { error: error.message, code: error.code } };
    console.error(`[cluster] ${op} failed:`, error);
    return { status: 500, body: { error: `${op} failed: ${(error as Error).message}`, code: 'failed' } };
  }
}
