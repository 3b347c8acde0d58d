import { TRPCError } from '@trpc/server';
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { ChatView, ScrollToBottom } from '@/components/chat/chat-view';
import { SessionComposer } from '@/components/chat/session-composer';
import { StreamingReply } from '@/components/chat/streaming-reply';
import { displayTitle } from '@/components/session/display-title';
import { MarkRead } from '@/components/session/mark-read';
import { SessionHeader } from '@/components/session/session-header';
import { SessionMessages } from '@/components/session/session-messages';
import { getEventHub } from '@/server/runtime';
import { getQueryClient, getServerCaller, HydrateClient, requireUser, trpc } from '@/trpc/server';
import { loadMessagePage } from './actions';
import { MESSAGE_PAGE_SIZE, renderMessages } from './rendered-messages';

/** A missing id and another user's id both answer NOT_FOUND (DESIGN §2): both are this 404. */
async function orNotFound<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof TRPCError && (error.code === 'NOT_FOUND' || error.code === 'BAD_REQUEST')) notFound();
    throw error;
  }
}

/** The tab shows the session's title (the header keeps it current after a rename). */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  await requireUser();
  const { id } = await params;
  const session = await (await getServerCaller()).session.get({ id }).catch(() => null);
  return { title: session ? `${displayTitle(session)} · Entity Memory` : 'Session not found · Entity Memory' };
}

/** `?m=<messageId>` (a search hit): the page around it on its branch, or null when it is not a message here. */
async function aroundMessage(api: Awaited<ReturnType<typeof getServerCaller>>, sessionId: string, messageId: string | undefined) {
  if (!messageId) return null;
  try {
    return await api.message.around({ sessionId, messageId, limit: MESSAGE_PAGE_SIZE });
  } catch (error) {
    if (error instanceof TRPCError && (error.code === 'NOT_FOUND' || error.code === 'BAD_REQUEST')) return null;
    throw error;
  }
}

/**
 * `/sessions/<id>`: the current branch, newest page first, rendered on the server. With `?m=` the
 * page around that message instead, on the branch it is on (the head does not move), scrolled to it.
 */
export default async function SessionPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const user = await requireUser();
  const { id } = await params;
  const { m } = await searchParams;
  const messageId = typeof m === 'string' && m ? m : undefined;
  // Read before the data: whatever happens after it reaches the page through the event stream.
  const renderedAt = getEventHub().currentId(user.id);
  const api = await getServerCaller();
  const [session, around, chat] = await Promise.all([
    orNotFound(api.session.get({ id })),
    orNotFound(aroundMessage(api, id, messageId)),
    orNotFound(api.chat.state({ sessionId: id })),
  ]);
  const page = around ? around.messages : await orNotFound(api.message.branch({ sessionId: id, limit: MESSAGE_PAGE_SIZE }));
  const anchor = around && messageId ? { messageId, headId: around.headId, current: around.current } : undefined;
  // The header and the composer read these from the client cache: fill it with what was just read
  // (the events after `renderedAt` are replayed to them, so nothing needs fetching again on mount).
  getQueryClient().setQueryData(trpc.session.get.queryKey({ id }), session);
  getQueryClient().setQueryData(trpc.chat.state.queryKey({ sessionId: id }), chat);
  const messages = await renderMessages(id, user.id, page, anchor?.messageId);

  return (
    <HydrateClient>
      <ChatView followFromStart={!anchor}>
        <div className="mx-auto max-w-3xl px-4 pt-6">
          <SessionHeader sessionId={id} />
          <MarkRead sessionId={id} unread={session.unread} />
          {messageId && !anchor ? (
            <p role="status" className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/40 dark:text-amber-200">
              That message is not in this session any more; showing the current branch.
            </p>
          ) : null}
          <SessionMessages key={anchor?.messageId ?? 'head'} sessionId={id} initial={messages} loadPage={loadMessagePage} renderedAt={renderedAt} anchor={anchor} />
          <div className="mt-6">
            <StreamingReply sessionId={id} since={renderedAt} />
          </div>
          {/* Pinned: Stop and the message box stay in reach however long the reply grows. */}
          <div className="sticky bottom-0 z-10 mt-6 bg-white pb-4 pt-2 dark:bg-neutral-950">
            <ScrollToBottom />
            <SessionComposer sessionId={id} since={renderedAt} />
          </div>
        </div>
      </ChatView>
    </HydrateClient>
  );
}
