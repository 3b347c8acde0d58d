import type { RouterOutputs } from '@/trpc/types';
import { formatCost, formatRate, formatTokens } from './usage-format';
import type { UsageTableData } from './usage-csv';

export type UsageSummary = RouterOutputs['usage']['summary'];
type Row = UsageSummary['rows'][number];

const add = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : a + b);

/** Each period's figures over every split key: what the token and cache charts show. */
export function periods(summary: UsageSummary): { period: string; input: number | null; output: number | null; cacheRead: number | null; cacheWrite: number | null; reasoning: number | null; cacheHitRate: number | null }[] {
  const byPeriod = new Map<string, { input: number | null; output: number | null; cacheRead: number | null; cacheWrite: number | null; reasoning: number | null }>();
  for (const row of summary.rows) {
    const seen = byPeriod.get(row.period) ?? { input: null, output: null, cacheRead: null, cacheWrite: null, reasoning: null };
    byPeriod.set(row.period, {
      input: add(seen.input, row.input),
      output: add(seen.output, row.output),
      cacheRead: add(seen.cacheRead, row.cacheRead),
      cacheWrite: add(seen.cacheWrite, row.cacheWrite),
      reasoning: add(seen.reasoning, row.reasoning),
    });
  }
  return [...byPeriod.entries()].map(([period, figures]) => {
    const all = (figures.input ?? 0) + (figures.cacheRead ?? 0) + (figures.cacheWrite ?? 0);
    return { period, ...figures, cacheHitRate: figures.cacheRead !== null && all > 0 ? figures.cacheRead / all : null };
  });
}

export const keyOf = (row: Row): string => row.key ?? 'All';

/** The cost chart's data: one entry per period, a cost per split key (unknown or no price left out of the bars). */
export function costSeries(summary: UsageSummary): { keys: string[]; data: Record<string, string | number>[] } {
  const keys = [...new Set(summary.rows.map(keyOf))];
  const byPeriod = new Map<string, Record<string, string | number>>();
  for (const row of summary.rows) {
    const entry = byPeriod.get(row.period) ?? { period: row.period };
    if (row.costUsd !== null) entry[keyOf(row)] = row.costUsd;
    byPeriod.set(row.period, entry);
  }
  return { keys, data: [...byPeriod.values()] };
}

const SPLIT_NAMES = { model: 'Model', project: 'Project', agent: 'Agent', user: 'User' } as const;

export function costTable(summary: UsageSummary): UsageTableData {
  const split = summary.split ? [SPLIT_NAMES[summary.split]] : [];
  return {
    columns: ['Period', ...split, 'Exchanges', 'Input', 'Output', 'Cache read', 'Cache write', 'Cache hit', 'Cost', 'Note'],
    rows: summary.rows.map((row) => [
      row.period,
      ...(summary.split ? [row.key ?? ''] : []),
      String(row.exchanges),
      formatTokens(row.input),
      formatTokens(row.output),
      formatTokens(row.cacheRead),
      formatTokens(row.cacheWrite),
      formatRate(row.cacheHitRate),
      formatCost(row),
      row.estimated > 0 ? `${row.estimated} estimated (imported)` : '',
    ]),
  };
}

export function tokensTable(summary: UsageSummary): UsageTableData {
  return {
    columns: ['Period', 'Input', 'Output', 'Cache read', 'Cache write', 'Reasoning'],
    rows: periods(summary).map((period) => [period.period, formatTokens(period.input), formatTokens(period.output), formatTokens(period.cacheRead), formatTokens(period.cacheWrite), formatTokens(period.reasoning)]),
  };
}

export function cacheTable(summary: UsageSummary): UsageTableData {
  return { columns: ['Period', 'Cache hit rate'], rows: periods(summary).map((period) => [period.period, formatRate(period.cacheHitRate)]) };
}

export function sessionsTable(summary: UsageSummary, everyone: boolean): UsageTableData {
  return {
    columns: ['Session', ...(everyone ? ['User'] : []), 'Exchanges', 'Input', 'Output', 'Cache hit', 'Cost'],
    rows: summary.topSessions.map((session) => [session.title, ...(everyone ? [session.owner] : []), String(session.exchanges), formatTokens(session.input), formatTokens(session.output), formatRate(session.cacheHitRate), formatCost(session)]),
  };
}
