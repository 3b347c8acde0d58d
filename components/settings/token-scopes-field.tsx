'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { FilterSelect } from '@/components/ui/filter-select';
import { useTRPC } from '@/trpc/client';

/** The scopes of DESIGN §17, as lib/auth/token-scopes.ts names them; what each lets an agent do. */
export const SCOPE_CHOICES = [
  { scope: 'read', label: 'read', hint: 'read sessions through the API, exports, live events' },
  { scope: 'write', label: 'write', hint: 'write through the API, uploads' },
  { scope: 'proxy', label: 'proxy', hint: 'record an agent through the recording proxy' },
  { scope: 'import', label: 'import', hint: 'import transcripts (the collector)' },
  { scope: 'mcp', label: 'mcp', hint: 'the MCP server' },
] as const;
export type ScopeChoice = (typeof SCOPE_CHOICES)[number]['scope'];

/** A token of one project is read, write or MCP: the proxy and the import pick the project from the agent's folder. */
const PROJECT_SCOPES: readonly ScopeChoice[] = ['read', 'write', 'mcp'];
/** A new token reads and writes the API; the other ways in are chosen on purpose. */
const DEFAULT_SCOPES: readonly ScopeChoice[] = ['read', 'write'];

/** The token form's scopes (`scope` checkboxes) and project (`projectId`, "" for every project). */
export function TokenScopesField() {
  const trpc = useTRPC();
  const projects = useQuery(trpc.project.list.queryOptions());
  const [scopes, setScopes] = useState<readonly ScopeChoice[]>(DEFAULT_SCOPES);
  const [projectId, setProjectId] = useState<string | null>(null);
  const allowed = (scope: ScopeChoice) => projectId === null || PROJECT_SCOPES.includes(scope);
  return (
    <div className="flex w-full flex-wrap items-start gap-6">
      <fieldset className="space-y-1">
        <legend className="text-sm font-medium">Scopes</legend>
        {SCOPE_CHOICES.map(({ scope, label, hint }) => (
          <label key={scope} className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              name="scope"
              value={scope}
              checked={scopes.includes(scope) && allowed(scope)}
              disabled={!allowed(scope)}
              onChange={(event) => setScopes((now) => (event.target.checked ? [...now, scope] : now.filter((s) => s !== scope)))}
              className="h-4 w-4"
            />
            <span className="font-mono">{label}</span>
            <span className="text-neutral-600 dark:text-neutral-400">{hint}</span>
          </label>
        ))}
      </fieldset>
      <div className="space-y-1">
        <FilterSelect label="Project" allLabel="Every project" value={projectId} onChange={setProjectId}>
          {(projects.data ?? []).map((project) => (
            <option key={project.id} value={project.id}>
              {project.name}
            </option>
          ))}
        </FilterSelect>
        <input type="hidden" name="projectId" value={projectId ?? ''} />
        {projectId !== null ? <p className="text-xs text-neutral-600 dark:text-neutral-400">A token of one project can read, write and use MCP.</p> : null}
      </div>
    </div>
  );
}

/** The form's scopes and project as token.create takes them. */
export function scopesFromForm(form: FormData): { scopes: ScopeChoice[]; projectId: string | null } {
  const chosen = form.getAll('scope').map(String);
  const scopes = SCOPE_CHOICES.map(({ scope }) => scope).filter((scope) => chosen.includes(scope));
  return { scopes, projectId: String(form.get('projectId') ?? '') || null };
}
