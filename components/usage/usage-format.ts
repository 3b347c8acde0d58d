import type { RouterOutputs } from '@/trpc/types';

export type UsageFigures = NonNullable<RouterOutputs['usage']['session']>;

/** A count, or "unknown" when no exchange reported it (never 0). */
export const formatTokens = (value: number | null): string => (value === null ? 'unknown' : value.toLocaleString('en-US'));

/** The cost, "no price" when no exchange had one, and what was left out when some had none. */
export function formatCost(figures: Pick<UsageFigures, 'costUsd' | 'unpriced' | 'exchanges'>): string {
  if (figures.costUsd === null) return figures.unpriced > 0 ? 'no price' : figures.exchanges > 0 ? 'unknown' : '$0';
  const dollars = `$${figures.costUsd < 1 ? figures.costUsd.toFixed(4) : figures.costUsd.toFixed(2)}`;
  return figures.unpriced > 0 ? `${dollars} + ${figures.unpriced} without a price` : dollars;
}

export const formatRate = (rate: number | null): string => (rate === null ? 'unknown' : `${(rate * 100).toFixed(1)}%`);
