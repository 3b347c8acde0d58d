import type { SessionMeta } from '../types.js';

/**
 * The meta.json field linking an imported session's turns to the project commits its agent made
 * during them (operations/imported-project-commits.ts): turn → shas, oldest first.
 */
export const PROJECT_LINKS_KEY = 'project_links';

/** The project commits linked to an imported turn (timeline.list). */
export function linkedProjectCommits(meta: SessionMeta, turn: number): string[] {
  const links = meta[PROJECT_LINKS_KEY];
  if (typeof links !== 'object' || links === null) return [];
  const shas = (links as Record<string, unknown>)[String(turn)];
  return Array.isArray(shas) ? shas.filter((sha): sha is string => typeof sha === 'string' && /^[0-9a-f]{40}$/.test(sha)) : [];
}
