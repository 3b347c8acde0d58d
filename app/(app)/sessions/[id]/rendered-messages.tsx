import 'server-only';
import { CopyMessage } from '@/components/chat/copy-message';
import { EditAndResend } from '@/components/chat/edit-and-resend';
import { RetryButton } from '@/components/chat/retry-button';
import { MarkdownBody } from '@/components/markdown/markdown-body';
import { PlainTextBody } from '@/components/markdown/plain-text-body';
import { AttachmentLinks } from '@/components/session/attachment-links';
import { attachmentsOf } from '@/server/render/message-attachments';
import { BranchSwitcher } from '@/components/session/branch-switcher';
import { ForkCompareWith } from '@/components/compare/fork-compare-with';
import { MessageArticle } from '@/components/session/message-article';
import { ForkFromHere } from '@/components/session/fork-from-here';
import { MessageNote } from '@/components/organise/message-note';
import { BookmarkButton } from '@/components/organise/bookmark-button';
import { ToolCalls } from '@/components/session/tool-call';
import type { BranchMessage, RenderedMessage } from '@/components/session/types';
import { renderMarkdown } from '@/server/render/markdown';
import { keptUpstreamOf } from '@/server/proxy/kept-upstream';
import { replayMarkOf, replayOfferOf } from '@/server/proxy/replay-offer';
import { ReplayWith } from '@/components/chat/replay-with';
import { ReplayBadge } from '@/components/session/replay-badge';

/** Messages per page of the session view: the first paint and each older page. */
export const MESSAGE_PAGE_SIZE = 50;

async function renderOne(sessionId: string, viewerId: string, message: BranchMessage, currentId: string | undefined): Promise<RenderedMessage> {
  const body = await renderMarkdown(message.content, viewerId);
  const attachments = attachmentsOf(message.metadata, message.content);
  const fork = message.siblings.length > 1;
  // Retry a reply, or edit and resend a question: either makes a new branch beside this one.
  // A reply that called tools is a step of its turn: the turn's Retry is on its last reply only.
  const action =
    message.role === 'assistant' && message.toolCalls.length === 0 ? (
      <RetryButton sessionId={sessionId} assistantId={message.id} through={keptUpstreamOf(message.metadata)} />
    ) : message.role === 'user' ? (
      <EditAndResend sessionId={sessionId} messageId={message.id} parentId={message.parentId} content={message.content} />
    ) : null;
  const copyable = message.content.trim() !== '';
  const replayOffer = message.role === 'assistant' && message.toolCalls.length === 0 ? replayOfferOf(message.metadata) : null;
  const replayed = replayMarkOf(message.metadata);
  const node = (
    <MessageArticle
      message={message}
      current={message.id === currentId}
      footer={
        <>
          <ToolCalls calls={message.toolCalls} />
          <AttachmentLinks base={`/api/attachments/${encodeURIComponent(sessionId)}`} attachments={attachments} />
          {fork || action || copyable || message.role !== 'tool' ? (
            <div className="mt-2 flex flex-wrap items-center gap-2">
              {fork ? <BranchSwitcher sessionId={sessionId} messageId={message.id} siblings={message.siblings} /> : null}
              {fork ? <ForkCompareWith sessionId={sessionId} messageId={message.id} siblings={message.siblings} /> : null}
              {replayed ? <ReplayBadge sessionId={sessionId} messageId={message.id} of={replayed.of} model={replayed.model} /> : null}
              {copyable ? <CopyMessage text={message.content} /> : null}
              {action}
              {replayOffer ? <ReplayWith sessionId={sessionId} assistantId={message.id} offer={replayOffer} /> : null}
              {message.role === 'assistant' && message.toolCalls.length === 0 ? <ForkFromHere sessionId={sessionId} at={{ nodeId: message.id }} /> : null}
              {message.role === 'tool' ? null : <BookmarkButton sessionId={sessionId} messageId={message.id} />}
            </div>
          ) : null}
          {message.role === 'tool' ? null : <MessageNote sessionId={sessionId} messageId={message.id} />}
        </>
      }
    >
      {'html' in body ? <MarkdownBody html={body.html} /> : <PlainTextBody text={body.text} reason={body.plain} />}
    </MessageArticle>
  );
  return { id: message.id, parentId: message.parentId, node };
}

/**
 * A page of the branch, each message's Markdown and code rendered on the server (in its render
 * workers) for `viewerId`, the signed-in reader, whose render cache it uses; `currentId` is marked.
 */
export function renderMessages(sessionId: string, viewerId: string, messages: BranchMessage[], currentId?: string): Promise<RenderedMessage[]> {
  return Promise.all(messages.map((message) => renderOne(sessionId, viewerId, message, currentId)));
}
