'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '@/trpc/client';
import type { ComposerProps } from './composer';
import { uploadAttachment } from './upload-attachment';
import { useDraft } from './use-draft';

/** Where a message goes: an existing session (its files are uploaded there first), or a new one in a project. */
export type SendTarget = { sessionId: string } | { projectId?: string };

/**
 * The send path of the new-chat page and of an open session: the draft (kept per `scope`), its
 * files, and `sendDraft`, which uploads the files, calls chat.send and clears the draft. Errors
 * reach the caller, which decides what a failure undoes.
 */
export function useSendMessage(scope: string) {
  const trpc = useTRPC();
  const { draft, update, clear } = useDraft(scope);
  const [files, setFiles] = useState<File[]>([]);
  const status = useQuery(trpc.chat.modelStatus.queryOptions());
  const send = useMutation(trpc.chat.send.mutationOptions());

  /** Resolves with the id of the session the message went to. */
  async function sendDraft(target: SendTarget, options: { model?: string } = {}): Promise<string> {
    const content = draft.text;
    const attachmentIds: string[] = [];
    if ('sessionId' in target) for (const file of files) attachmentIds.push((await uploadAttachment(target.sessionId, file)).id);
    const { sessionId } = await send.mutateAsync({ ...target, content, ...options, ...(attachmentIds.length > 0 ? { attachmentIds } : {}) });
    clear();
    setFiles([]);
    return sessionId;
  }

  /** The message box's share of the Composer props. */
  const composer = {
    value: draft.text,
    onChange: (text: string) => update({ text }),
    files,
    onFilesChange: setFiles,
    sendDisabled: status.data ? !status.data.configured : false,
  } satisfies Partial<ComposerProps>;

  return { draft, update, files, sendDraft, pending: send.isPending, composer };
}
