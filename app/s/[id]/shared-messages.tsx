import 'server-only';
import { notFound, redirect } from 'next/navigation';
import { MarkdownBody } from '@/components/markdown/markdown-body';
import { PlainTextBody } from '@/components/markdown/plain-text-body';
import { AttachmentLinks } from '@/components/session/attachment-links';
import { MessageArticle } from '@/components/session/message-article';
import { ToolCalls } from '@/components/session/tool-call';
import type { RenderedMessage } from '@/components/session/types';
import type { RenderedMarkdown } from '@/server/render/markdown';
import { renderSharedPage } from '@/server/share/share-render';
import { isShareNotFound, ShareUnauthorized, type SharedView, type SharedWindow } from '@/server/share/share-view';
import { getRequestContext } from '@/trpc/server';
import { MESSAGE_PAGE_SIZE } from '../../(app)/sessions/[id]/rendered-messages';

/** What a message id looks like (server/api/schemas.ts): anything else names no shown message. */
const MESSAGE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A page of the shared branch, the session page's size (`MESSAGE_PAGE_SIZE`), rendered as the
 * link's owner; or this request's answer instead: 404 for every link that cannot be opened (and a
 * `before` it does not show), sign-in under `login`.
 */
export async function sharedPageOr(id: string, before?: string): Promise<{ view: SharedView; messages: RenderedMessage[] }> {
  if (before !== undefined && !MESSAGE_ID.test(before)) notFound();
  const window: SharedWindow = { limit: MESSAGE_PAGE_SIZE, before };
  let page: Awaited<ReturnType<typeof renderSharedPage>>;
  try {
    const { user } = await getRequestContext();
    page = await renderSharedPage(id, { signedIn: user !== null }, window);
  } catch (error) {
    if (error instanceof ShareUnauthorized) redirect(`/signin?callbackUrl=${encodeURIComponent(`/s/${id}`)}`);
    if (isShareNotFound(error)) notFound();
    throw error;
  }
  return { view: page.view, messages: renderedMessages(id, page.view, page.bodies) };
}

/**
 * The page's messages as the session page's list takes them: `parentId` is the shared message
 * before (null for the first the link shows), which is all the list needs to offer older ones.
 */
function renderedMessages(id: string, view: SharedView, bodies: RenderedMarkdown[]): RenderedMessage[] {
  const attachmentBase = `/api/share/${encodeURIComponent(id)}/attachments`;
  return view.messages.map((message, index) => {
    const body = bodies[index]!;
    const node = (
      <MessageArticle
        message={message}
        footer={
          <>
            <ToolCalls calls={message.toolCalls} />
            <AttachmentLinks base={attachmentBase} attachments={message.attachments} />
          </>
        }
      >
        {'html' in body ? <MarkdownBody html={body.html} /> : <PlainTextBody text={body.text} reason={body.plain} />}
      </MessageArticle>
    );
    return { id: message.id, parentId: index > 0 ? view.messages[index - 1]!.id : view.olderId, node };
  });
}
