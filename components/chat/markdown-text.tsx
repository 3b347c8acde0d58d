'use client';

import { memo } from 'react';
import ReactMarkdown from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';

const NO_IMAGES = ['img'];

/**
 * Streamed text as Markdown while it arrives: GitHub flavour, sanitised (a reply can never run
 * script), and without images: a remote one would tell its host who reads the reply (only the
 * CSP stood in the way). The finished message, rendered on the server, shows its attachments.
 */
export const MarkdownText = memo(function MarkdownText({ text }: { text: string }) {
  return (
    <div className="prose-chat space-y-2 text-sm leading-6 [&_code]:rounded [&_code]:bg-neutral-100 [&_code]:px-1 [&_pre]:overflow-x-auto [&_pre]:rounded-md [&_pre]:bg-neutral-100 [&_pre]:p-3 dark:[&_code]:bg-neutral-800 dark:[&_pre]:bg-neutral-800 [&_ol]:list-decimal [&_ol]:pl-5 [&_ul]:list-disc [&_ul]:pl-5 [&_a]:text-blue-600 [&_a]:underline dark:[&_a]:text-blue-400">
      <ReactMarkdown remarkPlugins={[remarkGfm]} rehypePlugins={[rehypeSanitize]} disallowedElements={NO_IMAGES}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
