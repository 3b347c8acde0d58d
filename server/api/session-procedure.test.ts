import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import type { UserRecord } from '@/lib/auth/index';
import { startModelServer, type ModelServer } from '@/lib/llm/testing/model-server';

// The runtime reads its environment once: set it before importing anything that opens stores.
const dataDir = join(mkdtempSync(join(tmpdir(), 'em-session-procedure-')), 'data');
process.env.OPENPROGRAM_DATA_DIR = dataDir;
let model: ModelServer;
let runtime: typeof import('@/server/runtime');
let root: typeof import('./root');

function user(id: string): UserRecord {
  return { id, email: `${id}@unit.test`, passwordHash: 'x', admin: false, disabled: false, sessionVersion: 1, createdAt: 0, updatedAt: 0 };
}

function callerFor(id: string) {
  return root.createCaller({ headers: new Headers(), user: user(id), via: 'token', authError: null, ip: null, responseCookies: [], answer: { headers: {} } });
}

async function failure(promise: Promise<unknown>): Promise<TRPCError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TRPCError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

const A = '0123456789abcdef';
const B = 'fedcba9876543210';

beforeAll(async () => {
  model = await startModelServer();
  process.env.OPENPROGRAM_LLM_BASE_URL = model.url;
  process.env.OPENPROGRAM_LLM_MODEL = 'unit-model';
  runtime = await import('@/server/runtime');
  root = await import('./root');
});

afterAll(async () => {
  for (const id of [A, B]) await (await runtime.getUserStore(id)).close();
  await model.close();
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
});

describe('sessionProcedure', () => {
  it('answers another user\'s session exactly like one that exists nowhere, before the handler runs', async () => {
    const a = callerFor(A);
    const b = callerFor(B);
    await a.session.create({ id: 'mine' });
    await a.message.append({ sessionId: 'mine', message: { role: 'user', content: 'secret' } });

    const foreign = await failure(b.message.nodes({ sessionId: 'mine' }));
    expect(foreign.code).toBe('NOT_FOUND');
    expect(foreign.message).toBe('unknown session: mine');
    const foreignAppend = await failure(b.message.append({ sessionId: 'mine', message: { role: 'user', content: 'intrusion' } }));
    expect(foreignAppend.message).toBe('unknown session: mine');
    const missing = await failure(b.message.nodes({ sessionId: 'nowhere' }));
    expect({ code: missing.code, message: missing.message }).toEqual({ code: 'NOT_FOUND', message: 'unknown session: nowhere' });
    // The store says the same for a missing session, so the two paths cannot be told apart.
    await expect((await runtime.getUserStore(B)).getNodes('mine')).rejects.toMatchObject({ code: 'NOT_FOUND', message: foreign.message });

    expect((await a.message.nodes({ sessionId: 'mine' })).messages.map((m) => m.content)).toEqual(['secret']);
    expect((await b.session.list()).rows).toEqual([]);
  });

  it('takes the id from `sessionId`, else `id`, and refuses a malformed one with the field named', async () => {
    const a = callerFor(A);
    await a.session.create({ id: 'named' });
    expect((await a.session.get({ id: 'named' })).id).toBe('named');
    expect(await a.branch.list({ sessionId: 'named' })).toEqual([]);
    for (const [call, text] of [
      [() => a.session.get({ id: '../x' }), /^id: must be a session id/],
      [() => a.branch.list({ sessionId: 'projects' }), /^sessionId: is a reserved name/],
      [() => a.branch.list({} as { sessionId: string }), /^id: /],
      [() => a.session.get('named' as unknown as { id: string }), /^input: /],
    ] as const) {
      const error = await failure(call());
      expect(error.code).toBe('BAD_REQUEST');
      expect(error.message).toMatch(text);
    }
  });

  it('regenerates titles with the model configured from the environment', async () => {
    const a = callerFor(A);
    await a.session.create({ id: 'titled', title: 'Mine' });
    await a.message.append({ sessionId: 'titled', message: { role: 'user', content: 'compare rust and go' } });
    expect((await a.session.regenerateTitle({ id: 'titled' })).title).toBe('Compare Rust And Go');
  });
});
