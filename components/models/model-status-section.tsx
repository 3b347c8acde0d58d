'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/trpc/client';

const SOURCE: Record<string, string> = { admin: 'set by an admin', env: 'from the server environment', local: 'a local server found by detection' };

/** Settings: which model chat and titles use, or exactly why there is none. */
export function ModelStatusSection() {
  const trpc = useTRPC();
  const status = useQuery(trpc.chat.modelStatus.queryOptions());
  const data = status.data;
  return (
    <section className="space-y-2" aria-labelledby="model-status-title">
      <h2 id="model-status-title" className="text-lg font-semibold">
        Model
      </h2>
      {!data ? (
        <p className="text-sm text-neutral-500">Checking…</p>
      ) : data.configured ? (
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm" aria-label="Model in use">
          <dt className="text-neutral-500">Chat model</dt>
          <dd>{data.model}</dd>
          <dt className="text-neutral-500">Title model</dt>
          <dd>{data.titleModel}</dd>
          <dt className="text-neutral-500">Server</dt>
          <dd className="break-all">{data.baseUrl}</dd>
          <dt className="text-neutral-500">Configured</dt>
          <dd>{SOURCE[data.source ?? ''] ?? data.source}</dd>
        </dl>
      ) : (
        <p role="status" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
          No model is in use: {data.reason}
        </p>
      )}
    </section>
  );
}
