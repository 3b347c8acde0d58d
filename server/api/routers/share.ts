import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { ShareError, type PinnedTurn, type ShareLink } from '@/lib/share/index';
import type { SessionStore } from '@/lib/store/index';
import { getShareLinks, getSharingMode, getUserStore } from '@/server/runtime';
import { commitOfTurn, newestTurn, sharedView } from '@/server/share/share-view';
import { audited } from '@/server/audit/audit-runtime';
import { createTRPCRouter, sessionProcedure, storeProcedure, visitorProcedure } from '../trpc';
import { nodeIdInput, sessionIdInput, shareExpiryInput, shareIdInput, shareScopeInput } from '../schemas';

/** A link as its owner's lists show it: the record without its owner, with its path and session title. */
function ownerView(store: SessionStore, link: ShareLink) {
  const { userId: _owner, ...rest } = link;
  const row = store.getRow(link.sessionId);
  return { ...rest, path: `/s/${link.id}`, sessionTitle: row ? row.title || row.preview || 'Untitled' : '' };
}

export type OwnedShareLink = ReturnType<typeof ownerView>;

function refuseWhenOff(): void {
  if (getSharingMode() === 'off') {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'sharing is turned off on this server (OPENPROGRAM_SHARING=off)' });
  }
}

/** A pin with the title the owner sees now: the link keeps it, whatever the session is renamed to later. */
function titled(store: SessionStore, sessionId: string, pin: PinnedTurn): PinnedTurn {
  return { ...pin, title: store.getRow(sessionId)?.title ?? '' };
}

async function pinNewest(store: SessionStore, sessionId: string): Promise<PinnedTurn> {
  const pin = await newestTurn(store, sessionId);
  if (!pin) throw new ShareError('BAD_REQUEST', 'this session has no finished turn yet: there is nothing to share');
  return titled(store, sessionId, pin);
}

/**
 * Publishing is a signed-in act: a link outlives the credential that made it (one that never
 * expires, public under OPENPROGRAM_SHARING=public), so a leaked API token, revoked since, could
 * otherwise have left a way in behind it. Tokens still list and revoke links.
 */
function refuseTokens(via: string): void {
  if (via === 'token') throw new TRPCError({ code: 'FORBIDDEN', message: 'share links are made and changed from a signed-in page, not with an API token' });
}

/**
 * Read-only share links (DESIGN §13). The owner's procedures act on their own links only (another
 * user's link answers as one that never existed); `view` is what a visitor of `/s/<id>` reads.
 */
export const shareRouter = createTRPCRouter({
  /**
   * `{sessionId, scope?: session|live|turn, turn?, expires?: 1d|7d|30d|never, toolCalls?}` → the link.
   * `session` (default) is pinned to the newest turn commit, `turn` to one turn (default the
   * newest) showing only what it added, `live` follows the newest turn.
   */
  create: sessionProcedure
    .input(
      z
        .object({
          sessionId: sessionIdInput,
          scope: shareScopeInput.default('session'),
          turn: z.number().int().min(1).optional(),
          expires: shareExpiryInput.default('7d'),
          toolCalls: z.boolean().default(true),
        })
        .strict(),
    )
    .mutation(async ({ ctx, input }) => {
      refuseWhenOff();
      refuseTokens(ctx.via);
      if (input.turn !== undefined && input.scope !== 'turn') throw new TRPCError({ code: 'BAD_REQUEST', message: 'turn goes with scope "turn" only' });
      let pin: PinnedTurn | null = null;
      if (input.scope === 'turn' && input.turn !== undefined) {
        const turn = await commitOfTurn(ctx.store, ctx.sessionId, input.turn);
        if (!turn) throw new TRPCError({ code: 'NOT_FOUND', message: `no turn ${input.turn} in this session` });
        pin = titled(ctx.store, ctx.sessionId, turn);
      } else if (input.scope !== 'live') {
        pin = await pinNewest(ctx.store, ctx.sessionId);
      }
      const link = await audited(ctx, 'share.create', (made) => made.id, () => getShareLinks().create(ctx.user.id, { sessionId: ctx.sessionId, scope: input.scope, pin, expires: input.expires, toolCalls: input.toolCalls }));
      return ownerView(ctx.store, link);
    }),

  /** `{mode, links}`: the instance's sharing mode and the caller's links (one session's with `sessionId`), newest first. */
  list: storeProcedure.input(z.object({ sessionId: sessionIdInput.optional() }).strict().optional()).query(({ ctx, input }) => {
    // One session's links: a session the caller does not have answers as every session procedure does.
    if (input?.sessionId !== undefined && !ctx.store.hasSession(input.sessionId)) {
      throw new TRPCError({ code: 'NOT_FOUND', message: `unknown session: ${input.sessionId}` });
    }
    const links = getShareLinks()
      .list(ctx.user.id, input?.sessionId)
      .filter((link) => ctx.store.hasSession(link.sessionId))
      .map((link) => ownerView(ctx.store, link));
    return { mode: getSharingMode(), links };
  }),

  /**
   * `{id, toLatest?, live?, expires?, toolCalls?}` → the link. `toLatest` moves the same link to
   * the session's newest turn; `live` switches between following it and a pinned snapshot (pinned
   * at the newest turn); `expires` counts from now.
   */
  update: storeProcedure
    .input(
      z
        .object({ id: shareIdInput, toLatest: z.boolean().optional(), live: z.boolean().optional(), expires: shareExpiryInput.optional(), toolCalls: z.boolean().optional() })
        .strict(),
    )
    .mutation(async ({ ctx, input }) => {
      refuseWhenOff();
      refuseTokens(ctx.via);
      const links = getShareLinks();
      const link = links.get(ctx.user.id, input.id);
      const repin = input.toLatest === true || (input.live === false && link.scope === 'live');
      const pin = repin && input.live !== true ? await pinNewest(ctx.store, link.sessionId) : undefined;
      return ownerView(ctx.store, await audited(ctx, 'share.update', input.id, () => links.update(ctx.user.id, input.id, { pin, live: input.live, expires: input.expires, toolCalls: input.toolCalls })));
    }),

  /** `{id}` → `{id}`: the link answers 404 from the next request on. */
  revoke: storeProcedure.input(z.object({ id: shareIdInput }).strict()).mutation(async ({ ctx, input }) => {
    await audited(ctx, 'share.revoke', input.id, () => getShareLinks().revoke(ctx.user.id, input.id));
    return { id: input.id };
  }),

  /**
   * `{id, limit?, before?}` → the shared branch `{title, scope, turn, at, toolCalls, expiresAt,
   * messages, olderId}`, for anyone the instance's mode lets in (signed in under `login`, the
   * default; without any credential under `public`). Revoked, expired, never made, or sharing
   * off: NOT_FOUND, always the same answer. Paged like `message.branch`: `limit` messages before
   * `before` (a message the link shows) or the newest `limit`; without a limit, all of them.
   */
  view: visitorProcedure
    .input(z.object({ id: shareIdInput, limit: z.number().int().min(1).max(500).optional(), before: nodeIdInput.optional() }).strict())
    .query(({ ctx, input }) => sharedView(input.id, { signedIn: ctx.user !== null }, { limit: input.limit, before: input.before })),
});

/** The owner's store for a link's session, for callers outside a procedure. */
export async function ownerStoreOf(link: ShareLink): Promise<SessionStore> {
  return getUserStore(link.userId);
}
