/**
 * Usage and cost as the API answers them (DESIGN §15): a user's own rollups, or (the admin) every
 * user's, each split named by what people read (a project's name, a user's email), sessions with
 * their titles. The sums come from lib/usage; this file only picks whose and names them.
 */
import type { PublicUser } from '@/lib/auth/index';
import { PriceBook, readPrices, sessionFigures, summarize, type UsageFigures, type UsageQuery, type UsageSource, type UsageSummary } from '@/lib/usage/index';
import { getAuthStore, getDataDir, getUserStore } from '@/server/runtime';
import { usageRollupsOf } from './usage-runtime';

export type UsageSummaryView = Omit<UsageSummary, 'topSessions'> & {
  topSessions: (UsageSummary['topSessions'][number] & { title: string; owner: string; ownSession: boolean })[];
  /** the rollups are being filled from the sessions: figures are not complete yet */
  catchingUp: boolean;
};

async function sourceOf(userId: string, owner: string): Promise<{ source: UsageSource | null; catchingUp: boolean; projectNames: Map<string, string>; titleOf: (id: string) => string }> {
  const store = await getUserStore(userId);
  const rollups = await usageRollupsOf(userId)?.catch(() => null);
  const projects = await store.listProjects();
  return {
    source: rollups?.database ? { owner, db: rollups.database } : null,
    catchingUp: rollups?.catchingUp ?? true,
    projectNames: new Map(projects.map((project) => [project.id, project.name])),
    titleOf: (id) => {
      const row = store.getRow(id);
      return row ? row.title || row.preview || 'Untitled' : '(deleted session)';
    },
  };
}

export const priceBook = (): PriceBook => new PriceBook(readPrices(getDataDir()));

/**
 * One user's figures, or with `everyone` (the admin only; the router checks) every user's, each
 * user named by email. Projects are named as their owner calls them.
 */
export async function usageSummary(caller: { id: string; email: string }, query: UsageQuery & { everyone?: boolean }): Promise<UsageSummaryView> {
  const users: Pick<PublicUser, 'id' | 'email'>[] = query.everyone ? getAuthStore().users.list().filter((user) => !user.disabled || user.id === caller.id) : [caller];
  const opened = await Promise.all(users.map(async (user) => ({ user, ...(await sourceOf(user.id, user.email)) })));
  const sources = opened.flatMap((entry) => (entry.source ? [entry.source] : []));
  const summary = summarize(sources, priceBook(), query);
  const byOwner = new Map(opened.map((entry) => [entry.user.email, entry]));
  const rows = query.split === 'project'
    ? summary.rows.map((row) => {
        const name = opened.map((entry) => entry.projectNames.get(row.key ?? '')).find((found) => found !== undefined);
        return { ...row, key: name ?? row.key };
      })
    : summary.rows;
  return {
    ...summary,
    rows,
    topSessions: summary.topSessions.map((session) => ({
      ...session,
      title: byOwner.get(session.owner)?.titleOf(session.sessionId) ?? '',
      ownSession: session.owner === caller.email,
    })),
    catchingUp: opened.some((entry) => entry.catchingUp),
  };
}

/** A session's figures for its header: null while the user's rollups cannot be read. */
export async function sessionUsage(userId: string, sessionId: string): Promise<UsageFigures | null> {
  await getUserStore(userId);
  const rollups = await usageRollupsOf(userId)?.catch(() => null);
  return rollups?.database ? sessionFigures(rollups.database, sessionId, priceBook()) : null;
}
