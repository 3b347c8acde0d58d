'use client';

import { useQuery } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Card } from '@/components/ui/card';
import { useTRPC } from '@/trpc/client';
import { formatCost, formatRate, formatTokens } from './usage-format';
import { UsageTable } from './usage-table';
import { cacheTable, costSeries, costTable, periods, sessionsTable, tokensTable, type UsageSummary } from './usage-tables';

/** Mid-tone colours, readable on the light and the dark background alike. */
const COLOURS = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626'];
const AXIS = { fill: 'currentColor', fontSize: 12 };
const TOOLTIP = { contentStyle: { background: 'var(--tooltip-bg, #fff)', color: '#111', borderRadius: 6 } };

export interface UsageInput {
  from: string;
  to: string;
  by: 'day' | 'week' | 'month';
  split?: 'model' | 'project' | 'agent' | 'user';
  everyone: boolean;
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <Card>
      <section aria-labelledby={id} className="space-y-3">
        <h2 id={id} className="text-lg font-semibold">
          {title}
        </h2>
        {children}
      </section>
    </Card>
  );
}

function Chart({ name, children }: { name: string; children: ReactNode }) {
  // A picture of the table below it (DESIGN §7: an img named by what it shows): screen readers read the table.
  return (
    <div role="img" aria-label={name} className="h-64 w-full text-neutral-700 dark:text-neutral-300">
      <ResponsiveContainer width="100%" height="100%">{children as React.ReactElement}</ResponsiveContainer>
    </div>
  );
}

const FIELD = 'rounded-md border border-neutral-300 bg-white px-2 py-1 text-sm dark:border-neutral-700 dark:bg-neutral-900';

/** The Usage page (DESIGN §15): charts by day, week or month with a table and CSV under each. */
export function UsageDashboard({ initial, admin }: { initial: UsageInput; admin: boolean }) {
  const trpc = useTRPC();
  const [input, setInput] = useState<UsageInput>(initial);
  const summary = useQuery(trpc.usage.summary.queryOptions(input));
  const ids = { from: useId(), to: useId(), by: useId(), split: useId(), everyone: useId() };
  const set = (change: Partial<UsageInput>) => setInput((current) => ({ ...current, ...change }));
  const data: UsageSummary | undefined = summary.data;
  const everyone = input.everyone || input.split === 'user';
  const suffix = `${input.from}_${input.to}_${input.by}${input.split ? `_${input.split}` : ''}`;

  return (
    <div className="space-y-6">
      <form aria-label="Usage range" className="flex flex-wrap items-end gap-3" onSubmit={(event) => event.preventDefault()}>
        <label htmlFor={ids.from} className="flex flex-col text-sm">
          From
          <input id={ids.from} type="date" className={FIELD} value={input.from} max={input.to} onChange={(event) => event.target.value && set({ from: event.target.value })} />
        </label>
        <label htmlFor={ids.to} className="flex flex-col text-sm">
          To
          <input id={ids.to} type="date" className={FIELD} value={input.to} min={input.from} onChange={(event) => event.target.value && set({ to: event.target.value })} />
        </label>
        <div role="radiogroup" aria-labelledby={ids.by} className="flex flex-col text-sm">
          <span id={ids.by}>Period</span>
          <div className="flex gap-1 py-1">
            {(['day', 'week', 'month'] as const).map((by) => (
              <label key={by} className="flex items-center gap-1 rounded-md border border-neutral-300 px-2 py-0.5 has-[:checked]:border-blue-600 has-[:checked]:bg-blue-50 dark:border-neutral-700 dark:has-[:checked]:border-blue-400 dark:has-[:checked]:bg-blue-950">
                <input type="radio" name={ids.by} value={by} checked={input.by === by} onChange={() => set({ by })} />
                {by[0]!.toUpperCase() + by.slice(1)}
              </label>
            ))}
          </div>
        </div>
        <label htmlFor={ids.split} className="flex flex-col text-sm">
          Split by
          <select id={ids.split} className={FIELD} value={input.split ?? ''} onChange={(event) => set({ split: (event.target.value || undefined) as UsageInput['split'] })}>
            <option value="">Nothing</option>
            <option value="model">Model</option>
            <option value="project">Project</option>
            <option value="agent">Agent</option>
            {admin ? <option value="user">User</option> : null}
          </select>
        </label>
        {admin ? (
          <label htmlFor={ids.everyone} className="flex items-center gap-2 text-sm">
            <input id={ids.everyone} type="checkbox" checked={input.everyone} onChange={(event) => set({ everyone: event.target.checked })} />
            Every user
          </label>
        ) : null}
      </form>

      {summary.error ? (
        <p role="status" className="text-sm text-red-700 dark:text-red-400">
          {summary.error.message}
        </p>
      ) : null}
      {data ? (
        <>
          <dl aria-label="Totals" className="grid grid-cols-2 gap-3 sm:grid-cols-4">
            {[
              ['Cost', formatCost(data.totals)],
              ['Input tokens', formatTokens(data.totals.input)],
              ['Output tokens', formatTokens(data.totals.output)],
              ['Cache hit rate', formatRate(data.totals.cacheHitRate)],
            ].map(([term, value]) => (
              <div key={term} className="rounded-md border border-neutral-200 p-3 dark:border-neutral-800">
                <dt className="text-xs text-neutral-600 dark:text-neutral-400">{term}</dt>
                <dd className="text-lg font-semibold tabular-nums">{value}</dd>
              </div>
            ))}
          </dl>
          {data.totals.estimated > 0 ? (
            <p className="text-sm text-neutral-600 dark:text-neutral-400">
              {data.totals.estimated} of {data.totals.exchanges} exchanges are imported estimates: Claude Code&apos;s transcripts undercount input and output tokens.
            </p>
          ) : null}
          {data.unpricedModels.length > 0 ? <p className="text-sm text-neutral-600 dark:text-neutral-400">No price for: {data.unpricedModels.join(', ')}. An admin can add one in Admin → Prices.</p> : null}
          {data.catchingUp ? <p role="status" className="text-sm text-amber-700 dark:text-amber-400">The figures are being read from the sessions: they are not complete yet.</p> : null}

          <Section title="Cost">
            <Chart name={`Cost by ${input.by}${input.split ? ` and ${input.split}` : ''}`}>
              <BarChart data={costSeries(data).data}>
                <CartesianGrid strokeDasharray="3 3" strokeOpacity={0.3} />
                <XAxis dataKey="period" tick={AXIS} />
                <YAxis tick={AXIS} tickFormatter={(value: number) => `$${value}`} />
                <Tooltip {...TOOLTIP} />
                <Legend />
                {costSeries(data).keys.map((key, index) => (
                  <Bar key={key} dataKey={key} stackId="cost" fill={COLOURS[index % COLOURS.length]} isAnimationActive={false} />
                ))}
              </BarChart>
            </Chart>
            <UsageTable caption="Cost" table={costTable(data)} fileName={`usage-cost_${suffix}.csv`} />
          </Section>

          <Section title="Tokens">
            <Chart name={`Tokens by ${input.by}${input.split ? ` and ${input.split}` : ''}`}>
              <BarChart data={periods(data)}>
                <CartesianGrid strokeDasharray="3 3" strokeOpacity={0.3} />
                <XAxis dataKey="period" tick={AXIS} />
                <YAxis tick={AXIS} />
                <Tooltip {...TOOLTIP} />
                <Legend />
                {(['input', 'output', 'cacheRead', 'cacheWrite'] as const).map((field, index) => (
                  <Bar key={field} dataKey={field} name={{ input: 'Input', output: 'Output', cacheRead: 'Cache read', cacheWrite: 'Cache write' }[field]} stackId="tokens" fill={COLOURS[index]} isAnimationActive={false} />
                ))}
              </BarChart>
            </Chart>
            <UsageTable caption="Tokens" table={tokensTable(data)} fileName={`usage-tokens_${suffix}.csv`} />
          </Section>

          <Section title="Cache hit rate">
            <Chart name={`Cache hit rate by ${input.by}`}>
              <LineChart data={periods(data).map((period) => ({ period: period.period, rate: period.cacheHitRate === null ? null : Math.round(period.cacheHitRate * 1000) / 10 }))}>
                <CartesianGrid strokeDasharray="3 3" strokeOpacity={0.3} />
                <XAxis dataKey="period" tick={AXIS} />
                <YAxis tick={AXIS} domain={[0, 100]} tickFormatter={(value: number) => `${value}%`} />
                <Tooltip {...TOOLTIP} />
                <Line dataKey="rate" name="Cache hit rate (%)" stroke={COLOURS[2]} strokeWidth={2} isAnimationActive={false} connectNulls={false} />
              </LineChart>
            </Chart>
            <UsageTable caption="Cache hit rate" table={cacheTable(data)} fileName={`usage-cache_${suffix}.csv`} />
          </Section>

          <Section title="Top sessions by cost">
            <UsageTable caption="Top sessions by cost" table={sessionsTable(data, everyone)} fileName={`usage-sessions_${suffix}.csv`} />
          </Section>
        </>
      ) : (
        <p role="status" className="text-sm text-neutral-500">
          Loading…
        </p>
      )}
    </div>
  );
}
