/**
 * The request path of every procedure, on one screen: context (who is calling), the procedure
 * bases (what they may call), and the two checks every call passes (domain errors → tRPC codes,
 * Origin on cookie mutations).
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { z } from 'zod';
import { FULL_ACCESS, type TokenAccess, type UserRecord } from '@/lib/auth/index';
import { isCrossOriginRequest } from '@/server/auth/origin';
import { authenticatePageRequest, authenticateRequest, type AuthOutcome, type AuthVia } from '@/server/auth/request-auth';
import { clientIp } from '@/server/auth/client-ip';
import { getAuthStore, getUserStore } from '@/server/runtime';
import { describeIssues, errorFormatter, mapDomainErrors } from './errors';
import { admitRead, enterUserWrite, type GateRefusal } from '@/server/cluster/user-gate';
import { MisdirectedError, misdirectedHeaders } from '@/server/cluster/misdirected';
import { sessionIdInput } from './schemas';
import { checkProcedureAccess, checkSessionProject, type ProcedureMeta } from './token-access';

export interface Context {
  headers: Headers;
  /** null when signed out */
  user: UserRecord | null;
  via: AuthVia | null;
  /** what the credential may reach: a token's scopes and project (server/api/token-access.ts); absent: everything */
  access?: TokenAccess;
  /** set when a credential was given and is wrong: protected procedures answer 401 with it */
  authError: string | null;
  ip: string | null;
  /** Set-Cookie headers for the answer (trpcResponseMeta sends them) */
  responseCookies: string[];
  /** a status and headers the answer must carry (421 with the owner, 503 with Retry-After) */
  answer: { status?: number; headers: Record<string, string> };
}

/** Build the context from request headers (an HTTP API request: a Bearer token or the cookie). */
export async function createTRPCContext({ headers }: { headers: Headers }): Promise<Context> {
  return contextOf(headers, await authenticateRequest(headers, getAuthStore()));
}

/** The server components' context: the sign-in cookie only, whatever else the request carries. */
export async function createPageContext({ headers }: { headers: Headers }): Promise<Context> {
  return contextOf(headers, await authenticatePageRequest(headers, getAuthStore()));
}

function contextOf(headers: Headers, outcome: AuthOutcome): Context {
  return {
    headers,
    user: outcome.kind === 'ok' ? outcome.auth.user : null,
    via: outcome.kind === 'ok' ? outcome.auth.via : null,
    access: outcome.kind === 'ok' ? outcome.auth.access : FULL_ACCESS,
    authError: outcome.kind === 'invalid' ? outcome.message : null,
    ip: clientIp(headers),
    responseCookies: [],
    answer: { headers: {} },
  };
}

/** The adapters' responseMeta: cookies a procedure set (a re-issued sign-in) go out with the answer. */
export function trpcResponseMeta({ ctx }: { ctx?: Context }): { status?: number; headers?: Record<string, string | string[]> } {
  if (!ctx) return {};
  const headers: Record<string, string | string[]> = { ...ctx.answer.headers };
  if (ctx.responseCookies.length > 0) headers['set-cookie'] = ctx.responseCookies;
  return { ...(ctx.answer.status ? { status: ctx.answer.status } : {}), ...(Object.keys(headers).length > 0 ? { headers } : {}) };
}

// Plain JSON, no transformer: any agent can call the API with curl (DESIGN §5).
const t = initTRPC.context<Context>().meta<ProcedureMeta>().create({ errorFormatter });

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

const domainErrors = t.middleware(mapDomainErrors);

const originCheck = t.middleware(({ ctx, type, next }) => {
  // Bearer requests carry no ambient credential, so only cookie (and anonymous) calls are checked.
  if (type === 'mutation' && ctx.via !== 'token' && ctx.via !== 'cli' && isCrossOriginRequest(ctx.headers, process.env.NEXTAUTH_URL)) {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'cross-origin request refused' });
  }
  return next();
});

/** Anyone, signed in or not. */
export const publicProcedure = t.procedure.use(domainErrors).use(originCheck);

/** Anyone; but an API token that shows itself needs the procedure's scope (a share link's visitor). */
export const visitorProcedure = publicProcedure.use(({ ctx, type, path, meta, next }) => {
  if (ctx.via === 'token') checkProcedureAccess({ scopes: (ctx.access ?? FULL_ACCESS).scopes, projectId: null }, meta, type, path);
  return next();
});

/**
 * A signed-in user (cookie), an API token, or the CLI; ctx.user is non-null. A user moved to another
 * instance is sent there (421 naming it); while a move freezes the user, writes answer 503 with
 * Retry-After, and the writes running are counted so the freeze can wait for them.
 */
export const protectedProcedure = publicProcedure.use(async ({ ctx, type, path, meta, next }) => {
  if (!ctx.user || !ctx.via) {
    throw new TRPCError({ code: 'UNAUTHORIZED', message: ctx.authError ?? 'sign in or send Authorization: Bearer <token>' });
  }
  // A token's scope and project, from the procedure's meta (token-access.ts).
  checkProcedureAccess(ctx.access ?? FULL_ACCESS, meta, type, path);
  const nextCtx = { ctx: { ...ctx, user: ctx.user, via: ctx.via } };
  if (type !== 'mutation') {
    const refusal = admitRead(ctx.user.id);
    if (refusal) refuse(ctx, refusal);
    return next(nextCtx);
  }
  const entry = enterUserWrite(ctx.user.id);
  if (!entry.ok) refuse(ctx, entry.refusal);
  try {
    return await next(nextCtx);
  } finally {
    entry.leave();
  }
});

/** A moved user's 421 (the one shape: server/cluster/misdirected.ts) or a frozen user's 503 with Retry-After. */
function refuse(ctx: Context, refusal: GateRefusal): never {
  if (refusal.kind === 'moved') {
    Object.assign(ctx.answer.headers, misdirectedHeaders(refusal.owner));
    ctx.answer.status = 421;
    const cause = new MisdirectedError(refusal.owner);
    throw new TRPCError({ code: 'PRECONDITION_FAILED', message: cause.message, cause });
  }
  ctx.answer.headers['retry-after'] = String(refusal.retryAfterSeconds);
  throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: refusal.message });
}

/** Not with a personal API token: a token cannot create tokens, change the password or administer. */
export const cookieOnlyProcedure = protectedProcedure.use(({ ctx, next }) => {
  if (ctx.via === 'token') {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'API tokens cannot call this procedure; sign in instead' });
  }
  return next();
});

/** An admin, signed in (or the CLI acting as one). */
export const adminProcedure = cookieOnlyProcedure.use(({ ctx, next }) => {
  if (!ctx.user.admin) throw new TRPCError({ code: 'FORBIDDEN', message: 'admins only' });
  return next();
});

/**
 * protectedProcedure with the caller's own session store in ctx.store. The store is chosen by the
 * authenticated user only, so a handler cannot reach another user's sessions; a session procedure
 * that also loads the session by id builds on this.
 */
export const storeProcedure = protectedProcedure.use(async ({ ctx, next }) => {
  return next({ ctx: { ...ctx, store: await getUserStore(ctx.user.id) } });
});

/**
 * storeProcedure for one session named by the input (`sessionId`, else `id`): the id is checked
 * and the session must be in the caller's own store before the handler runs, so a handler can
 * only ever act on ctx.sessionId, a session of the caller. Another user's session is simply not
 * in that store: it answers exactly like an id that exists nowhere (the store's own message).
 * Runs before the procedure's input parser, on the raw input: nothing else is read or written.
 */
export const sessionProcedure = storeProcedure.use(async ({ ctx, type, getRawInput, next }) => {
  const raw = await getRawInput();
  const key = typeof raw === 'object' && raw !== null && Object.hasOwn(raw, 'sessionId') ? 'sessionId' : 'id';
  const parsed = z.object({ [key]: sessionIdInput }).safeParse(raw);
  if (!parsed.success) throw new TRPCError({ code: 'BAD_REQUEST', message: describeIssues(parsed.error.issues) });
  const sessionId = (parsed.data as Record<string, string>)[key]!;
  if (!ctx.store.hasSession(sessionId)) throw new TRPCError({ code: 'NOT_FOUND', message: `unknown session: ${sessionId}` });
  checkSessionProject(ctx.access ?? FULL_ACCESS, ctx.store.sessionProjectId(sessionId), type, sessionId);
  return next({ ctx: { ...ctx, sessionId } });
}).meta({ project: 'session' });
