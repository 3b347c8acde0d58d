'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { toast } from 'sonner';
import { useTRPC } from '@/trpc/client';
import { ModelSelect } from './chat-settings-controls';
import { Composer } from './composer';
import { NoModelNotice } from './no-model-notice';
import { ProjectPicker } from './project-chip';
import { useSendMessage } from './use-send-message';

/**
 * The new-chat page's composer: a draft that creates nothing until it is sent. Sending creates
 * the session with its first message (with attachments: the session first, then the uploads,
 * then the message) and opens it.
 */
export function NewChat() {
  const trpc = useTRPC();
  const router = useRouter();
  const { draft, update, files, sendDraft, composer } = useSendMessage('new');
  const [sending, setSending] = useState(false);
  const create = useMutation(trpc.session.create.mutationOptions());
  const remove = useMutation(trpc.session.delete.mutationOptions());
  const projectId = draft.projectId;
  const [model, setModel] = useState<string | null>(null);

  async function onSend() {
    setSending(true);
    let made: string | null = null;
    try {
      const project = projectId !== 'default' ? { projectId } : {};
      // Uploads need a session to belong to: with files, the session is made first.
      if (files.length > 0) made = (await create.mutateAsync({ source: 'web', ...project })).id;
      const sessionId = await sendDraft(made ? { sessionId: made } : project, model ? { model } : {});
      router.push(`/sessions/${sessionId}`);
    } catch (error) {
      // Never an empty shell: a session made only for these uploads goes if the message did not.
      if (made) await remove.mutateAsync({ id: made }).catch(() => undefined);
      toast.error((error as Error).message);
      setSending(false);
    }
  }

  return (
    <div className="flex min-h-[60vh] flex-col justify-center gap-4">
      <h1 className="text-center text-2xl font-semibold">New chat</h1>
      <p className="text-center text-sm text-neutral-600 dark:text-neutral-400">
        Nothing is saved until you send: then the conversation becomes a session with its own git history.
      </p>
      <NoModelNotice />
      <Composer
        {...composer}
        onSend={() => void onSend()}
        onStop={() => undefined}
        running={false}
        sending={sending}
        projectChip={
          <>
            <ProjectPicker projectId={projectId} onChange={(id) => update({ projectId: id })} />
            <ModelSelect value={model} onChange={setModel} />
          </>
        }
      />
    </div>
  );
}
