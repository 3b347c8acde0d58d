import { TRPCError, initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AuthError } from '@/lib/auth/errors';
import { ConflictError, NotFoundError, PreconditionError } from '@/lib/store/errors';
import { describeIssues, errorFormatter, mapDomainErrors, toTRPCError } from './errors';

describe('toTRPCError', () => {
  it('maps store and auth errors by code, keeping the message', () => {
    expect(toTRPCError(new NotFoundError('no such session'))).toMatchObject({ code: 'NOT_FOUND', message: 'no such session' });
    expect(toTRPCError(new ConflictError('running'))?.code).toBe('CONFLICT');
    expect(toTRPCError(new PreconditionError('dirty'))?.code).toBe('PRECONDITION_FAILED');
    expect(toTRPCError(new AuthError('TOO_MANY_REQUESTS', 'slow down'))?.code).toBe('TOO_MANY_REQUESTS');
  });

  it('looks through a TRPCError wrapping a domain error', () => {
    const wrapped = new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: new NotFoundError('gone') });
    expect(toTRPCError(wrapped)).toMatchObject({ code: 'NOT_FOUND', message: 'gone' });
  });

  it('maps a failing model server to BAD_GATEWAY with its message', async () => {
    const { ModelError } = await import('@/lib/llm/chat-client');
    expect(toTRPCError(new ModelError('the model server answered 500: oops', 500))).toMatchObject({
      code: 'BAD_GATEWAY',
      message: 'the model failed: the model server answered 500: oops',
    });
  });

  it('maps a full disk (errno, or git saying so) to SERVICE_UNAVAILABLE with a message that says what to do', () => {
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write '/data/users/u/sessions/s/meta.json'"), { code: 'ENOSPC' });
    const mapped = toTRPCError(enospc);
    expect(mapped?.code).toBe('SERVICE_UNAVAILABLE');
    expect(mapped?.message).toMatch(/out of disk space.*not saved.*free some space/i);
    // The path of the file is not the user's business.
    expect(mapped?.message).not.toContain('/data/');
    expect(toTRPCError(new Error('git failed: error: unable to create temporary file: No space left on device'))?.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('leaves other errors alone', () => {
    expect(toTRPCError(new Error('boom'))).toBeNull();
    expect(toTRPCError(Object.assign(new Error('enoent'), { code: 'ENOENT' }))).toBeNull();
  });
});

describe('errorFormatter through a router', () => {
  const t = initTRPC.create({ errorFormatter });
  const mapped = t.middleware(mapDomainErrors);
  const router = t.router({
    find: t.procedure.use(mapped).input(z.object({ email: z.email(), n: z.number().int() })).query(() => {
      throw new NotFoundError('no such thing');
    }),
    crash: t.procedure.use(mapped).query(() => {
      throw new Error('/secret/path exploded');
    }),
  });
  const caller = t.createCallerFactory(router)({});

  it('answers a domain error with its code', async () => {
    await expect(caller.find({ email: 'a@b.org', n: 1 })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'no such thing' });
  });

  it('gives validation errors a readable message', async () => {
    const error = await caller.find({ email: 'nope', n: 1.5 }).catch((e: TRPCError) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe('BAD_REQUEST');
    const shape = errorFormatter({
      error: error as TRPCError,
      shape: { message: 'raw', code: -32600, data: { code: 'BAD_REQUEST', httpStatus: 400 } },
    });
    expect(shape.message).toMatch(/^email: .+; n: .+/);
    expect(router).toBeDefined();
  });

  it('hides internals of unexpected errors', async () => {
    const error = (await caller.crash().catch((e: TRPCError) => e)) as TRPCError;
    const shape = errorFormatter({ error, shape: { message: error.message, code: -32603, data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500 } } });
    expect(shape.message).toBe('internal server error');
  });

  it('describes issues with their paths', () => {
    expect(describeIssues([{ path: ['a', 0, { key: 'b' }], message: 'bad' }, { path: [], message: 'worse' }])).toBe('a.0.b: bad; input: worse');
  });
});
