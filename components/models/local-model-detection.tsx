'use client';

import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/trpc/client';

/** Detection of a local OpenAI-compatible server on 127.0.0.1 (Ollama, LM Studio, llama.cpp, vLLM). */
export function LocalModelDetection({ on, onToggle, onUse }: { on: boolean; onToggle: (on: boolean) => void; onUse: (baseUrl: string, model: string) => void }) {
  const trpc = useTRPC();
  const detect = useMutation(trpc.models.detect.mutationOptions());
  return (
    <div className="space-y-2 text-sm">
      <label className="flex items-center gap-2">
        <input type="checkbox" checked={on} onChange={(event) => onToggle(event.target.checked)} />
        Use a local model server when none is set (127.0.0.1 ports 11434, 1234, 8080, 8000)
      </label>
      <button type="button" onClick={() => detect.mutate()} disabled={detect.isPending} className="rounded-md border border-neutral-300 px-3 py-1.5 dark:border-neutral-700">
        {detect.isPending ? 'Looking…' : 'Detect local servers'}
      </button>
      {detect.data ? (
        detect.data.servers.length === 0 ? (
          <p role="status">No local server answered.</p>
        ) : (
          <ul aria-label="Local servers" className="space-y-1">
            {detect.data.servers.map((server) => (
              <li key={server.port}>
                <span className="font-medium">{server.name}</span> on port {server.port}:{' '}
                {server.models.length === 0
                  ? 'no models'
                  : server.models.map((model) => (
                      <button key={model} type="button" onClick={() => onUse(server.baseUrl, model)} className="mr-1 rounded border border-neutral-300 px-1.5 py-0.5 text-xs dark:border-neutral-700">
                        Use {model}
                      </button>
                    ))}
              </li>
            ))}
          </ul>
        )
      ) : null}
    </div>
  );
}
