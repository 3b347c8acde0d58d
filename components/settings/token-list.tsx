'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import type { RouterOutputs } from '@/trpc/types';
import { useTRPC } from '@/trpc/client';

type TokenRow = RouterOutputs['token']['list'][number];

function when(ms: number | null): string {
  return ms === null ? 'never' : new Date(ms).toLocaleString();
}

export function TokenList({ initialTokens }: { initialTokens: TokenRow[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.token.list.queryOptions(undefined, { initialData: initialTokens }));
  const revoke = useMutation(
    trpc.token.revoke.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.token.list.queryKey() }),
    }),
  );
  const [revoking, setRevoking] = useState<TokenRow | null>(null);
  const projects = useQuery(trpc.project.list.queryOptions());
  const projectNames = new Map((projects.data ?? []).map((project) => [project.id, project.name]));
  const rows = tokens.data ?? [];
  if (rows.length === 0) return <p className="text-sm text-neutral-600 dark:text-neutral-400">No API tokens yet.</p>;
  return (
    <>
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Your API tokens</caption>
        <thead>
          <tr className="border-b border-neutral-200 dark:border-neutral-800">
            <th scope="col" className="py-2">Name</th>
            <th scope="col">Created</th>
            <th scope="col">Scopes</th>
            <th scope="col">Project</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col"><span className="sr-only">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          {rows.map((token) => (
            <tr key={token.id} className="border-b border-neutral-100 dark:border-neutral-900">
              <td className="py-2 font-medium">{token.name}</td>
              <td>{when(token.createdAt)}</td>
              <td className="font-mono">{token.scopes.join(', ')}</td>
              <td>{token.projectId === null ? 'every project' : (projectNames.get(token.projectId) ?? token.projectId)}</td>
              <td>{when(token.lastUsedAt)}</td>
              <td>{token.expiresAt === null ? 'never' : `${when(token.expiresAt)}${token.expired ? ' (expired)' : ''}`}</td>
              <td className="text-right">
                <Button
                  variant="danger"
                  disabled={revoke.isPending}
                  aria-label={`Revoke token ${token.name}`}
                  onClick={() => setRevoking(token)}
                >
                  Revoke
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ConfirmDialog
        open={revoking !== null}
        onOpenChange={(open) => !open && setRevoking(null)}
        title="Revoke this token?"
        description={`Agents using “${revoking?.name ?? ''}” stop working at once.`}
        confirmLabel="Revoke"
        onConfirm={() => {
          if (revoking) revoke.mutate({ id: revoking.id });
          setRevoking(null);
        }}
      />
    </>
  );
}
