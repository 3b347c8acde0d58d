import { headers } from 'next/headers';
import { ChatsView } from '@/components/sessions/chats-view';
import { chatsInput, parseAgentFilter, parseProjectFilter, parseScope, SCOPES } from '@/components/sessions/list-inputs';
import { getQueryClient, HydrateClient, requireUser, trpc } from '@/trpc/server';
import { parseOrganiseFilter } from '@/components/organise/organise-filter';

export const metadata = { title: 'Chats · Entity Memory' };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The origin agents reach this server at, for the empty state's curl example. */
async function requestOrigin(): Promise<string> {
  const list = await headers();
  const host = list.get('x-forwarded-host') ?? list.get('host') ?? 'localhost:3000';
  const proto = list.get('x-forwarded-proto') ?? (process.env.NEXTAUTH_URL?.startsWith('https:') ? 'https' : 'http');
  return `${proto}://${host}`;
}

export default async function ChatsPage({ searchParams }: { searchParams: SearchParams }) {
  await requireUser();
  const params = await searchParams;
  const scope = parseScope(params.scope);
  const q = typeof params.q === 'string' ? params.q.trim().slice(0, 500) : '';
  const agent = parseAgentFilter(params.agent);
  const project = parseProjectFilter(params.project);
  const organise = parseOrganiseFilter(params);
  // All three scopes of this search, so the tabs switch without a request.
  const queryClient = getQueryClient();
  await Promise.all(
    SCOPES.map((each) =>
      queryClient.prefetchInfiniteQuery(trpc.session.list.infiniteQueryOptions(chatsInput(each, q, agent, organise, project), { getNextPageParam: (page) => page.nextCursor })),
    ),
  );
  await queryClient.prefetchQuery(trpc.session.agents.queryOptions({ scope: 'all' }));
  await queryClient.prefetchQuery(trpc.tag.list.queryOptions());
  await queryClient.prefetchQuery(trpc.project.list.queryOptions());
  return (
    <HydrateClient>
      {/* keyed by the filter a link can set (tags, agent, project): a sidebar tag or saved view starts from its filter */}
      <ChatsView key={JSON.stringify({ organise, agent, project })} initialOrganise={organise} initialScope={scope} initialQuery={q} initialAgent={agent} initialProject={project} origin={await requestOrigin()} focusSearch={params.focus === 'search'} />
    </HydrateClient>
  );
}
