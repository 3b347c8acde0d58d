'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { useTRPC } from '@/trpc/client';
import type { RouterOutputs } from '@/trpc/types';

type User = RouterOutputs['admin']['listUsers'][number];
type Move = RouterOutputs['clusterMove']['get'];

const STEPS = ['precopy', 'freeze', 'final-copy', 'verify', 'flip', 'cleanup'] as const;
const STEP_LABEL: Record<(typeof STEPS)[number], string> = {
  precopy: 'copying while live',
  freeze: 'freezing writes',
  'final-copy': 'copying the last writes',
  verify: 'verifying the copy',
  flip: 'switching the owner',
  cleanup: 'removing the old copy',
};

function describe(move: Move, email: string): { error?: string; success?: string; progress?: string } {
  if (move.status === 'done') return { success: `Moved ${email} to ${move.to}${move.freezeMs !== undefined ? `; writes waited ${move.freezeMs} ms` : ''}.` };
  if (move.status === 'rolled-back') return { success: `Move of ${email} rolled back: still on ${move.from}.` };
  if (move.status === 'failed') return { error: `Move of ${email} to ${move.to} stopped at ${STEP_LABEL[move.step]}: ${move.error ?? 'unknown error'}` };
  return { progress: `Moving ${email} to ${move.to}: ${STEP_LABEL[move.step]} (step ${STEPS.indexOf(move.step) + 1} of ${STEPS.length})` };
}

/** One user's row: where they are, a target, Move; then the move's progress and result. */
function UserMoveRow({ user, shard, instances, latest, self }: { user: User; shard: string | null; instances: { id: string }[]; latest: Move | null; self: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const targets = instances.filter((instance) => instance.id !== shard);
  const [to, setTo] = useState(targets[0]?.id ?? '');
  const [moveId, setMoveId] = useState<string | null>(latest && (latest.status === 'running' || latest.status === 'failed') ? latest.id : null);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.clusterMove.overview.queryKey() });
  const move = useQuery({
    ...trpc.clusterMove.get.queryOptions({ moveId: moveId ?? 'unknown0' }),
    enabled: moveId !== null,
    refetchInterval: (query) => (query.state.data?.status === 'running' ? 500 : false),
  });
  const start = useMutation(trpc.clusterMove.start.mutationOptions());
  const carryOn = useMutation(trpc.clusterMove.continue.mutationOptions());
  const current = move.data ?? null;
  const running = current?.status === 'running' || start.isPending;
  const shown = current ? describe(current, user.email) : {};
  const settledOn = current && current.status !== 'running' && current.status !== 'failed' ? (current.status === 'done' ? current.to : current.from) : null;
  // A finished move changes where the user is: the row's instance follows.
  useEffect(() => {
    if (settledOn && settledOn !== shard) void refresh();
  }, [settledOn, shard]); // eslint-disable-line react-hooks/exhaustive-deps

  async function act(work: () => Promise<Move>) {
    setError(null);
    try {
      setMoveId((await work()).id);
      await move.refetch();
    } catch (failure) {
      setError((failure as Error).message);
    }
  }

  const selectId = `move-target-${user.id}`;
  return (
    <li className="space-y-2 px-3 py-3">
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
        <div className="min-w-0 flex-1">
          <p className="truncate text-sm font-medium">{user.email}</p>
          <p className="text-xs text-neutral-600 dark:text-neutral-400">{shard ? `On ${shard}` : 'Not in the shard directory'}</p>
        </div>
        {self ? (
          // This page would lose its own answers halfway (they go to the new instance): the CLI moves you.
          <p className="text-xs text-neutral-600 dark:text-neutral-400">You: move yourself with entity-memory cluster move</p>
        ) : shard && targets.length > 0 ? (
          <div className="flex items-center gap-2">
            <label htmlFor={selectId} className="sr-only">
              Move {user.email} to
            </label>
            <select
              id={selectId}
              value={to}
              onChange={(event) => setTo(event.target.value)}
              disabled={running}
              className="rounded-md border border-neutral-300 bg-white px-3 py-2 text-sm dark:border-neutral-700 dark:bg-neutral-900"
            >
              {targets.map((instance) => (
                <option key={instance.id} value={instance.id}>
                  {instance.id}
                </option>
              ))}
            </select>
            <Button aria-label={`Move ${user.email}`} disabled={running || !to} onClick={() => void act(() => start.mutateAsync({ userId: user.id, to }))}>
              Move
            </Button>
          </div>
        ) : null}
      </div>
      {shown.progress ? (
        <p role="status" className="text-sm text-neutral-700 dark:text-neutral-300">
          {shown.progress}
        </p>
      ) : null}
      <FormMessage error={error ?? shown.error} success={error ? null : shown.success} />
      {current?.status === 'failed' ? (
        <div className="flex gap-2">
          <Button variant="secondary" disabled={carryOn.isPending} onClick={() => void act(() => carryOn.mutateAsync({ moveId: current.id, action: 'resume' }))}>
            Resume move
          </Button>
          <Button variant="danger" disabled={carryOn.isPending} onClick={() => void act(() => carryOn.mutateAsync({ moveId: current.id, action: 'rollback' }))}>
            Roll back move
          </Button>
        </div>
      ) : null}
    </li>
  );
}

/**
 * Moving users between instances (DESIGN §11): shown when this instance is configured as a mover
 * (OPENPROGRAM_CLUSTER_SECRET and a shard directory); otherwise it says what is missing.
 */
export function UserMovesSection({ users, currentUserId }: { users: User[]; currentUserId: string }) {
  const trpc = useTRPC();
  const overview = useQuery(trpc.clusterMove.overview.queryOptions());
  if (!overview.data) return overview.error ? <FormMessage error={overview.error.message} /> : null;
  const data = overview.data;
  if (!data.enabled) return <p className="text-sm text-neutral-600 dark:text-neutral-400">Moving users needs a cluster: {data.reason}.</p>;
  return (
    <div className="space-y-3">
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        A move copies the user while they work, refuses their writes for the few seconds of the last copy and its check, then switches them to the new instance.
      </p>
      <ul aria-label="Users by instance" className="divide-y divide-neutral-200 rounded-md border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
        {users.map((user) => (
          <UserMoveRow
            key={user.id}
            user={user}
            shard={data.owners[user.id]?.shard ?? null}
            instances={data.instances}
            latest={data.moves.find((move) => move.userId === user.id) ?? null}
            self={user.id === currentUserId}
          />
        ))}
      </ul>
    </div>
  );
}
