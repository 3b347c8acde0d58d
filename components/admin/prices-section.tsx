'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { DataTable } from '@/components/ui/data-table';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';
import type { RouterOutputs } from '@/trpc/types';

type Price = RouterOutputs['usage']['prices'][number];
const FIELDS = [
  ['input', 'Input'],
  ['output', 'Output'],
  ['cacheRead', 'Cache read'],
  ['cacheWrite', 'Cache write'],
] as const;

/**
 * Admin → Prices (DESIGN §15): US dollars per million tokens per model, each valid from a day. A
 * new price applies from its day on; figures before it keep the price they had.
 */
export function PricesSection({ initial }: { initial: Price[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const prices = useQuery(trpc.usage.prices.queryOptions(undefined, { initialData: initial }));
  const save = useMutation(
    trpc.usage.setPrice.mutationOptions({
      onSuccess: () => Promise.all([queryClient.invalidateQueries({ queryKey: trpc.usage.prices.queryKey() }), queryClient.invalidateQueries({ queryKey: trpc.usage.pathKey() })]),
    }),
  );
  const [draft, setDraft] = useState({ model: '', input: '', output: '', cacheRead: '', cacheWrite: '', from: new Date().toISOString().slice(0, 10) });
  const [message, setMessage] = useState<{ error?: string; success?: string }>({});

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const numbers = Object.fromEntries(FIELDS.map(([field]) => [field, Number(draft[field])])) as Record<(typeof FIELDS)[number][0], number>;
    try {
      await save.mutateAsync({ model: draft.model.trim(), from: draft.from, ...numbers });
      setMessage({ success: `${draft.model.trim()} is priced from ${draft.from} on.` });
    } catch (failure) {
      setMessage({ error: (failure as Error).message });
    }
  }

  return (
    <div className="space-y-4">
      <p className="text-sm text-neutral-600 dark:text-neutral-400">US dollars per million tokens. A dated snapshot (claude-sonnet-4-5-20250929) takes the price of its model (claude-sonnet-4-5).</p>
      <DataTable caption="Prices" columns={['Model', 'From', ...FIELDS.map(([, label]) => label)]} frameClassName="max-h-80 overflow-auto">
        {(prices.data ?? []).map((price) => (
          <tr key={`${price.model}@${price.from}`}>
            <td className="px-3 py-1.5 font-mono text-xs">{price.model}</td>
            <td className="px-3 py-1.5 tabular-nums">{price.from}</td>
            {FIELDS.map(([field]) => (
              <td key={field} className="px-3 py-1.5 tabular-nums">
                ${price[field]}
              </td>
            ))}
          </tr>
        ))}
      </DataTable>
      <form onSubmit={(event) => void onSubmit(event)} aria-label="Set a price" className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-7 lg:items-end">
        <TextField label="Model" name="model" className="col-span-2" value={draft.model} onChange={(event) => setDraft({ ...draft, model: event.target.value })} required maxLength={200} autoComplete="off" spellCheck={false} />
        {FIELDS.map(([field, label]) => (
          <TextField key={field} label={`${label} $/M`} name={field} type="number" min={0} step="any" value={draft[field]} onChange={(event) => setDraft({ ...draft, [field]: event.target.value })} required />
        ))}
        <TextField label="Valid from" name="from" type="date" value={draft.from} onChange={(event) => setDraft({ ...draft, from: event.target.value })} required />
        <Button type="submit" disabled={save.isPending} className="col-span-2 sm:col-span-1">
          Set price
        </Button>
      </form>
      <FormMessage error={message.error} success={message.success} />
    </div>
  );
}
