'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { FormMessage } from '@/components/ui/form-message';
import { useTRPC } from '@/trpc/client';

/** The per-user redaction switch (DESIGN §10): saved as soon as it changes. */
export function RedactionSetting({ initial }: { initial: boolean }) {
  const trpc = useTRPC();
  const save = useMutation(trpc.user.setPrefs.mutationOptions());
  const [on, setOn] = useState(initial);
  const [message, setMessage] = useState<{ error?: string; success?: string }>({});

  async function change(next: boolean) {
    setOn(next);
    try {
      const prefs = await save.mutateAsync({ redactSecrets: next });
      setOn(prefs.redactSecrets);
      setMessage({ success: prefs.redactSecrets ? 'Secrets are redacted from now on.' : 'Redaction is off: messages are stored as written.' });
    } catch (failure) {
      setOn(!next);
      setMessage({ error: (failure as Error).message });
    }
  }

  return (
    <div className="space-y-2">
      <label className="flex items-start gap-2 text-sm">
        <input
          type="checkbox"
          className="mt-0.5 size-4 accent-neutral-900 dark:accent-neutral-100"
          checked={on}
          disabled={save.isPending}
          onChange={(event) => void change(event.currentTarget.checked)}
        />
        <span>Redact secrets from messages and imports</span>
      </label>
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        API keys and tokens (OpenAI, Anthropic, GitHub, AWS, Google, Slack, Stripe…), JWTs, private keys and Authorization values become{' '}
        <code>[REDACTED:kind]</code> before anything is written. A secret written to git stays there for good.
      </p>
      <FormMessage error={message.error} success={message.success} />
    </div>
  );
}
