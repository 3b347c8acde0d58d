import { UsageDashboard, type UsageInput } from '@/components/usage/usage-dashboard';
import { getQueryClient, HydrateClient, requireUser, trpc } from '@/trpc/server';

export const metadata = { title: 'Usage · Entity Memory' };

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** DESIGN §15: tokens, cost and cache over the last 30 days (UTC) by default; the admin may see everyone's. */
export default async function UsagePage() {
  const user = await requireUser();
  const now = Date.now();
  const initial: UsageInput = { from: day(now - 29 * 86_400_000), to: day(now), by: 'day', everyone: false };
  await getQueryClient().prefetchQuery(trpc.usage.summary.queryOptions(initial));
  return (
    <div className="mx-auto max-w-5xl space-y-4 px-4 py-6">
      <h1 className="text-2xl font-semibold">Usage</h1>
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        Tokens and cost of every recorded exchange, as the provider counted them on the wire; imported sessions are estimates. Days are UTC. A model without a price
        shows &ldquo;no price&rdquo;, and a count nobody reported shows &ldquo;unknown&rdquo;.
      </p>
      <HydrateClient>
        <UsageDashboard initial={initial} admin={user.admin} />
      </HydrateClient>
    </div>
  );
}
