'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { FormMessage } from '@/components/ui/form-message';
import { useTRPC } from '@/trpc/client';

/** Opens or closes self sign-up on the sign-in page. */
export function SignupSwitch({ initialOpen }: { initialOpen: boolean }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(initialOpen);
  const [error, setError] = useState<string | null>(null);
  const setSignup = useMutation(trpc.admin.setSignup.mutationOptions());

  async function toggle(next: boolean) {
    setError(null);
    try {
      setOpen((await setSignup.mutateAsync({ open: next })).open);
    } catch (failure) {
      setError((failure as Error).message);
    }
  }

  return (
    <div className="space-y-1">
      <label className="flex items-center gap-3 text-sm">
        <input
          type="checkbox"
          role="switch"
          aria-checked={open}
          checked={open}
          disabled={setSignup.isPending}
          onChange={(event) => void toggle(event.target.checked)}
          className="h-4 w-4"
        />
        Anyone may create an account on the sign-in page
      </label>
      <FormMessage error={error} />
    </div>
  );
}
