/**
 * `entity-memory usage --by day|model|project|session [--since YYYY-MM-DD] [--json]` (DESIGN §15):
 * the acting user's tokens and cost from the rollups, since a day (default: the last 30 days).
 */
import type { UsageFigures, UsageSummary } from '../lib/usage/index.js';
import { CliError, type CliBackend } from './backend.js';

export const USAGE_USAGE = 'usage --by day|model|project|session [--since YYYY-MM-DD] [--json]';
const GROUPINGS = ['day', 'model', 'project', 'session'] as const;
type Grouping = (typeof GROUPINGS)[number];

export interface UsageCommandOutput {
  out(line: string): void;
}

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
const count = (value: number | null) => (value === null ? 'unknown' : String(value));
const cost = (figures: UsageFigures) => (figures.costUsd === null ? (figures.unpriced > 0 ? 'no price' : 'unknown') : `$${figures.costUsd.toFixed(4)}${figures.unpriced > 0 ? ` + ${figures.unpriced} without a price` : ''}`);
const hitRate = (figures: UsageFigures) => (figures.cacheHitRate === null ? 'unknown' : `${(figures.cacheHitRate * 100).toFixed(1)}%`);

export function usageQueryOf(by: string | undefined, since: string | undefined): { grouping: Grouping; from: string; to: string } {
  const grouping = (by ?? 'day') as Grouping;
  if (!GROUPINGS.includes(grouping)) throw new CliError(`--by takes ${GROUPINGS.join(', ')}\n\nusage: entity-memory ${USAGE_USAGE}`, 'bad_input');
  const from = since ?? daysAgo(29);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || Number.isNaN(Date.parse(`${from}T00:00:00Z`))) throw new CliError(`--since takes a day as YYYY-MM-DD, not ${from}\n\nusage: entity-memory ${USAGE_USAGE}`, 'bad_input');
  if (from > today()) throw new CliError('--since is after today', 'bad_input');
  return { grouping, from, to: today() };
}

/** The rows the grouping shows: one per day, model or project over the range, or the sessions that cost most. */
export function usageLines(summary: UsageSummary, grouping: Grouping): { header: string[]; rows: string[][] } {
  const cells = (figures: UsageFigures) => [String(figures.exchanges), count(figures.input), count(figures.output), count(figures.cacheRead), count(figures.cacheWrite), hitRate(figures), cost(figures), figures.estimated > 0 ? `${figures.estimated} estimated` : ''];
  const tail = ['exchanges', 'input', 'output', 'cache_read', 'cache_write', 'cache_hit', 'cost', 'note'];
  if (grouping === 'session') {
    const sessions = summary.topSessions as (UsageSummary['topSessions'][number] & { title?: string })[];
    return { header: ['session', 'title', ...tail], rows: sessions.map((session) => [session.sessionId, session.title ?? '', ...cells(session)]) };
  }
  return { header: [grouping === 'day' ? 'day' : grouping, ...tail], rows: summary.rows.map((row) => [row.key ?? row.period, ...cells(row)]) };
}

export async function runUsageCommand(backend: CliBackend, values: { by?: string; since?: string; json?: boolean }, output: UsageCommandOutput): Promise<void> {
  const { grouping, from, to } = usageQueryOf(values.by, values.since);
  // By model or project the whole range is one bucket per key: asked by month over at most a year
  // would split it, so the rows are per key summed over the range (`by: 'day'` gives one per day).
  const split = grouping === 'model' || grouping === 'project' ? grouping : undefined;
  const summary = await backend.usageSummary({ from, to, by: 'day', ...(split ? { split } : {}), topSessions: grouping === 'session' ? 100 : 0 });
  const shown = split ? { ...summary, rows: byKey(summary) } : summary;
  if (values.json) {
    output.out(JSON.stringify(grouping === 'session' ? { from, to, totals: summary.totals, sessions: summary.topSessions } : { from, to, totals: summary.totals, rows: shown.rows }, null, 2));
    return;
  }
  const { header, rows } = usageLines(shown, grouping);
  output.out(header.join('\t'));
  for (const row of rows) output.out(row.map((cell) => cell.replace(/[\t\n\r]+/g, ' ')).join('\t'));
  output.out(['total', ...(grouping === 'session' ? [''] : []), ...usageLines({ ...shown, rows: [{ ...summary.totals, period: 'total', key: null }] }, 'day').rows[0]!.slice(1)].join('\t'));
}

/** Rows of the same key over the days summed into one (the figures' own rule: unknown only when no day knew). */
function byKey(summary: UsageSummary): UsageSummary['rows'] {
  const merged = new Map<string, UsageSummary['rows'][number]>();
  const add = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : a + b);
  for (const row of summary.rows) {
    const key = row.key ?? '';
    const seen = merged.get(key);
    if (!seen) {
      merged.set(key, { ...row, period: `${summary.from}..${summary.to}` });
      continue;
    }
    const input = add(seen.input, row.input);
    const cacheRead = add(seen.cacheRead, row.cacheRead);
    const cacheWrite = add(seen.cacheWrite, row.cacheWrite);
    const all = (input ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0);
    merged.set(key, {
      ...seen,
      exchanges: seen.exchanges + row.exchanges,
      estimated: seen.estimated + row.estimated,
      input,
      output: add(seen.output, row.output),
      cacheRead,
      cacheWrite,
      reasoning: add(seen.reasoning, row.reasoning),
      costUsd: add(seen.costUsd, row.costUsd),
      unpriced: seen.unpriced + row.unpriced,
      cacheHitRate: cacheRead !== null && all > 0 ? cacheRead / all : null,
    });
  }
  return [...merged.values()].sort((a, b) => (b.costUsd ?? -1) - (a.costUsd ?? -1));
}
