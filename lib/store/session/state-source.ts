import { realpathSync } from 'node:fs';
import { ForbiddenPathError, InvalidInputError } from '../errors.js';
import { assertSessionId } from '../ids.js';
import { isInside } from '../../fs/real-path.js';
import { listNodeFiles, readNodeFile } from '../repo/session-files.js';
import type { ImportNode } from './imported-nodes.js';
import type { StoreContext } from './store-context.js';
import type { StoredNode } from '../types.js';

/** One session repo of another OpenProgram-format state directory, to be moved in. */
export interface StateSessionInput {
  id: string;
  /** its repo (meta.json, history/, .git) */
  repoDir: string;
  /** its per-turn recovery records, when it has them */
  recoveryDir?: string | null;
  /** the state directory it belongs to: the repo must be inside it or inside the allowed roots */
  sourceRoot: string;
  projectId?: string;
  /** the project as the source registry names it; registered here under the same id if missing */
  project?: { name: string; path: string } | null;
}

/** A node as importSession takes it. */
export type StateNode = ImportNode;

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** An OpenProgram node as the store's import sees it (the reverse of storedNode). */
export function importNodeOf(node: StoredNode): StateNode | null {
  const metadata = node.metadata && typeof node.metadata === 'object' ? { ...node.metadata } : {};
  const role = node.role === 'user' ? 'user' : node.role === 'llm' ? (metadata['role'] === 'system' ? 'system' : 'assistant') : node.role === 'code' ? 'tool' : null;
  if (!role) return null;
  if (role === 'system') delete metadata['role'];
  const caller = typeof node.caller === 'string' && node.caller !== '' && node.caller !== 'ROOT' ? node.caller : null;
  return {
    id: node.id,
    createdAt: node.created_at,
    role,
    content: node.output,
    input: node.input,
    name: node.name,
    metadata,
    parentId: role === 'tool' ? null : (node.predecessor ?? null),
    calledBy: role === 'tool' ? caller : undefined,
  };
}

/** A repo's nodes in seq order, cut into turns at each user message. */
export function stateTurnsOf(repoDir: string): { turns: StateNode[][]; skipped: number } {
  const nodes: StoredNode[] = [];
  let skipped = 0;
  for (const file of listNodeFiles(repoDir)) {
    const node = readNodeFile(repoDir, file.name);
    if (node) nodes.push(node);
    else skipped++;
  }
  nodes.sort((a, b) => a.seq - b.seq);
  const turns: StateNode[][] = [];
  for (const node of nodes) {
    const item = importNodeOf(node);
    if (!item) {
      skipped++;
      continue;
    }
    if (item.role === 'user' || turns.length === 0) turns.push([]);
    turns[turns.length - 1]!.push(item);
  }
  return { turns, skipped };
}

/**
 * The real path of a session repo to move in, when it may be read: inside its state directory or
 * the allowed roots (a locations.json elsewhere is never followed), and not inside this one.
 */
export function checkStateSource(ctx: Pick<StoreContext, 'allowedRoots' | 'stateDir'>, input: StateSessionInput): string {
  assertSessionId(input.id);
  const repo = realOrNull(input.repoDir);
  const root = realOrNull(input.sourceRoot);
  if (!repo || !root) throw new InvalidInputError(`session ${input.id}: its folder ${input.repoDir} does not exist`);
  const allowed = ctx.allowedRoots.map(realOrNull).filter((path): path is string => path !== null);
  if (!isInside(repo, root) && !allowed.some((dir) => isInside(repo, dir))) {
    throw new ForbiddenPathError(`session ${input.id}: ${input.repoDir} is outside the state directory and the allowed roots`);
  }
  const own = realOrNull(ctx.stateDir) ?? ctx.stateDir;
  if (isInside(repo, own)) throw new InvalidInputError(`session ${input.id}: ${input.repoDir} is already inside this data directory`);
  return repo;
}
