import { z } from 'zod';
import { TRPCError } from '@trpc/server';
import { normalizeUpstreamUrl, UPSTREAM_NAME_PATTERN } from '@/lib/auth/index';
import { refuseInternalUpstream } from '@/lib/proxy/upstream-address';
import { lastRefusal } from '@/server/proxy/refusals';
import { instanceKeyServes } from '@/server/proxy/credentials';
import { getInstanceKeys, getProxyUpstreams, getUserStore } from '@/server/runtime';
import { cookieOnlyProcedure, createTRPCRouter } from '../trpc';

const upstreamName = z.string().regex(UPSTREAM_NAME_PATTERN, 'an upstream name is 1–32 lower-case letters, digits or dashes');

/** The agents the Connect page names, by the `source` their recorded sessions carry. */
const AGENT_SOURCES = [
  { agent: 'claude-code', source: 'proxy:claude-code' },
  { agent: 'codex', source: 'proxy:codex' },
  { agent: 'anthropic-sdk', source: 'proxy:anthropic' },
  { agent: 'openai-sdk', source: 'proxy:openai' },
] as const;

/**
 * The recording proxy's settings (DESIGN §12). Cookie only: a token given to an agent must not
 * read or redirect where that agent's traffic goes. Keys are write-only: listed as set or not.
 */
export const proxyRouter = createTRPCRouter({
  /** `instanceKey`: with no key of the user's own, the proxy uses the admin's instance key here (the admin lets this user, one is set). */
  listUpstreams: cookieOnlyProcedure.query(({ ctx }) => {
    const instance = getInstanceKeys();
    return getProxyUpstreams()
      .list(ctx.user.id)
      .map(({ name, kind, baseUrl, keySet, builtIn }) => ({ name, kind, baseUrl, keySet, builtIn, instanceKey: instanceKeyServes({ name, kind, baseUrl }) && instance.keyFor(ctx.user.id, kind) !== null }));
  }),

  /** An omitted key keeps the stored one; an empty key clears it; an omitted baseUrl keeps it (or the default). */
  setUpstream: cookieOnlyProcedure
    .input(
      z
        .object({
          name: upstreamName,
          kind: z.enum(['anthropic', 'openai']),
          baseUrl: z.string().max(2_000).refine((value) => value.trim() === '' || /^https?:\/\//i.test(value.trim()), 'must be an http:// or https:// URL').optional(),
          key: z.string().max(4_000).optional(),
        })
        .strict(),
    )
    .mutation(async ({ ctx, input }) => {
      if (input.baseUrl !== undefined && input.baseUrl.trim() !== '') {
        // SSRF: the proxy would call this URL from inside the server's network.
        const refused = await refuseInternalUpstream(normalizeUpstreamUrl(input.baseUrl));
        if (refused) throw new TRPCError({ code: 'BAD_REQUEST', message: `Upstream refused: ${refused}.` });
      }
      return getProxyUpstreams().set(ctx.user.id, input);
    }),

  deleteUpstream: cookieOnlyProcedure.input(z.object({ name: upstreamName }).strict()).mutation(({ ctx, input }) => getProxyUpstreams().delete(ctx.user.id, input.name)),

  /**
   * Each agent's last recorded exchange (its newest session of that source) and, when the proxy
   * refused one after it (no stored key), that refusal: nothing was recorded for it.
   */
  lastExchanges: cookieOnlyProcedure.query(async ({ ctx }) => {
    const store = await getUserStore(ctx.user.id);
    return AGENT_SOURCES.map(({ agent, source }) => {
      const row = store.listSessions({ scope: 'all', source, limit: 1 }).rows[0];
      const refusal = lastRefusal(ctx.user.id, agent);
      const refused = refusal && (!row || refusal.at > row.updatedAt) ? { at: refusal.at, status: refusal.status, message: refusal.message } : null;
      return { agent, source, session: row ? { id: row.id, title: row.title || row.preview || row.id, updatedAt: row.updatedAt } : null, refused };
    });
  }),
});
