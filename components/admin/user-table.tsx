'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { PromptDialog } from '@/components/ui/prompt-dialog';
import type { RouterOutputs } from '@/trpc/types';
import { useTRPC } from '@/trpc/client';
import { signInMethodLabel } from './sign-in-method-label';

type UserRow = RouterOutputs['admin']['listUsers'][number];

export function UserTable({ initialUsers, currentUserId }: { initialUsers: UserRow[]; currentUserId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const users = useQuery(trpc.admin.listUsers.queryOptions(undefined, { initialData: initialUsers }));
  const [message, setMessage] = useState<{ error?: string; success?: string }>({});
  const [resetting, setResetting] = useState<UserRow | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.admin.listUsers.queryKey() });
  const setDisabled = useMutation(trpc.admin.setDisabled.mutationOptions({ onSuccess: refresh }));
  const resetPassword = useMutation(trpc.admin.resetPassword.mutationOptions());

  async function run(action: () => Promise<unknown>, success: string) {
    try {
      await action();
      setMessage({ success });
    } catch (failure) {
      setMessage({ error: (failure as Error).message });
    }
  }

  return (
    <div className="space-y-2">
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Users</caption>
          <thead>
            <tr className="border-b border-neutral-200 dark:border-neutral-800">
              <th scope="col" className="py-2">Email</th>
              <th scope="col" className="hidden pr-2 sm:table-cell">Role</th>
              <th scope="col" className="hidden sm:table-cell">Status</th>
              <th scope="col" className="hidden pl-2 sm:table-cell">Sign-in</th>
              <th scope="col"><span className="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {(users.data ?? []).map((user) => (
              <tr key={user.id} className="border-b border-neutral-100 dark:border-neutral-900">
                <td className="py-2 pr-2 font-medium [overflow-wrap:anywhere]">
                  {user.email}
                  {user.id === currentUserId ? <span className="whitespace-nowrap text-neutral-500"> (you)</span> : null}
                  {/* On a phone the role and status columns fold in here, so the actions stay in view. */}
                  <span className="block text-xs font-normal text-neutral-500 sm:hidden dark:text-neutral-400">
                    {user.admin ? 'admin' : 'user'} · {user.disabled ? 'disabled' : 'active'} · {signInMethodLabel(user.signIn)}
                  </span>
                </td>
                <td className="hidden pr-2 sm:table-cell">{user.admin ? 'admin' : 'user'}</td>
                <td className="hidden sm:table-cell">{user.disabled ? 'disabled' : 'active'}</td>
                <td className="hidden pl-2 sm:table-cell">{signInMethodLabel(user.signIn)}</td>
                <td className="py-1.5 pl-2 text-right">
                  <div className="flex flex-wrap justify-end gap-1.5">
                    <Button
                      variant="secondary"
                      className="px-2 py-1 text-xs"
                      aria-label={`Reset the password of ${user.email}`}
                      onClick={() => setResetting(user)}
                    >
                      Reset password
                    </Button>
                    <Button
                      variant={user.disabled ? 'secondary' : 'danger'}
                      className="px-2 py-1 text-xs"
                      aria-label={`${user.disabled ? 'Enable' : 'Disable'} ${user.email}`}
                      disabled={setDisabled.isPending}
                      onClick={() =>
                        void run(
                          () => setDisabled.mutateAsync({ userId: user.id, disabled: !user.disabled }),
                          `${user.email} ${user.disabled ? 'enabled' : 'disabled'}.`,
                        )
                      }
                    >
                      {user.disabled ? 'Enable' : 'Disable'}
                    </Button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <FormMessage error={message.error} success={message.success} />
      <PromptDialog
        open={resetting !== null}
        onOpenChange={(open) => !open && setResetting(null)}
        title={`Reset the password of ${resetting?.email ?? ''}`}
        description="Their sign-ins end at once. Tell them the new password."
        label="New password (8 characters or more)"
        type="password"
        minLength={8}
        submitLabel="Reset password"
        onSubmit={(password) => {
          const user = resetting;
          if (user) void run(() => resetPassword.mutateAsync({ userId: user.id, password }), `Password of ${user.email} reset.`);
        }}
      />
    </div>
  );
}
