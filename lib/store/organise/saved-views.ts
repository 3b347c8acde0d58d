import { join } from 'node:path';
import { readJsonFile, writeJsonFile } from '../../fs/user-state-file.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import { PROJECT_ID_PATTERN } from '../ids.js';
import type { ListFilter, ListScope } from '../types.js';
import { normaliseState, normaliseTags } from './tags.js';

/** `users/<id>/views.json`: the user's saved Chats filters (DESIGN §16); a move carries the folder. */
export const VIEWS_FILE = 'views.json';
export const MAX_VIEW_NAME_CHARS = 60;
export const MAX_VIEWS = 100;
const MAX_QUERY_CHARS = 500;
const MAX_AGENT_CHARS = 200;
const SCOPES: readonly ListScope[] = ['active', 'archived', 'all'];

/** What a saved view filters by: the Chats page's own fields, nothing else of session.list. */
export interface ViewFilter {
  scope?: ListScope;
  q?: string;
  agent?: string;
  projectId?: string;
  tags?: string[];
  tagMode?: 'all' | 'any';
  untagged?: boolean;
  state?: ListFilter['state'];
}

export interface SavedView {
  name: string;
  filter: ViewFilter;
  /** Unix seconds on disk */
  createdAt: number;
}

interface ViewsDocument {
  version: 1;
  views: SavedView[];
}

/** A view's name as kept: trimmed, 1–60 characters, no control characters. */
export function normaliseViewName(raw: unknown): string {
  if (typeof raw !== 'string') throw new InvalidInputError('a view name must be a string');
  const name = raw.trim();
  if (name === '') throw new InvalidInputError('a view name must not be empty');
  if ([...name].length > MAX_VIEW_NAME_CHARS) throw new InvalidInputError(`a view name is at most ${MAX_VIEW_NAME_CHARS} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/u.test(name)) throw new InvalidInputError('a view name has no control characters');
  return name;
}

function optionalText(raw: unknown, field: string, max: number): string | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string') throw new InvalidInputError(`${field} must be a string`);
  const text = raw.trim();
  if ([...text].length > max) throw new InvalidInputError(`${field} is at most ${max} characters`);
  return text === '' ? undefined : text;
}

/** A filter as kept: only the fields it sets, each checked (so a view never stores what session.list would refuse). */
export function normaliseViewFilter(raw: unknown): ViewFilter {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InvalidInputError('a view filter must be an object');
  const input = raw as Record<string, unknown>;
  const filter: ViewFilter = {};
  if (input['scope'] !== undefined) {
    if (!SCOPES.includes(input['scope'] as ListScope)) throw new InvalidInputError(`scope is one of ${SCOPES.join(', ')}`);
    if (input['scope'] !== 'active') filter.scope = input['scope'] as ListScope;
  }
  const q = optionalText(input['q'], 'q', MAX_QUERY_CHARS);
  if (q) filter.q = q;
  const agent = optionalText(input['agent'], 'agent', MAX_AGENT_CHARS);
  if (agent) filter.agent = agent;
  const projectId = optionalText(input['projectId'], 'projectId', 64);
  if (projectId) {
    if (!PROJECT_ID_PATTERN.test(projectId)) throw new InvalidInputError('invalid project id');
    filter.projectId = projectId;
  }
  if (input['tags'] !== undefined) {
    const tags = normaliseTags(input['tags']);
    if (tags.length > 0) filter.tags = tags;
  }
  if (input['tagMode'] !== undefined && input['tagMode'] !== 'all' && input['tagMode'] !== 'any') throw new InvalidInputError('tagMode is all or any');
  if (input['tagMode'] === 'any' && filter.tags) filter.tagMode = 'any';
  if (input['untagged'] !== undefined && typeof input['untagged'] !== 'boolean') throw new InvalidInputError('untagged must be true or false');
  if (input['untagged'] === true) filter.untagged = true;
  if (input['state'] !== undefined && input['state'] !== null) filter.state = input['state'] === 'none' ? 'none' : normaliseState(input['state'])!;
  return filter;
}

const sameName = (a: string, b: string) => a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0;

/** One user's saved views, read once and written whole and atomically; synchronous, so writes never interleave. */
export class ViewFile {
  private views: SavedView[] | null = null;

  constructor(private readonly stateDir: string) {}

  private get path(): string {
    return join(this.stateDir, VIEWS_FILE);
  }

  private load(): SavedView[] {
    if (this.views) return this.views;
    const doc = readJsonFile(this.path) as Partial<ViewsDocument> | null;
    const views: SavedView[] = [];
    for (const entry of Array.isArray(doc?.views) ? doc.views : []) {
      // A view of another shape (hand-edited, a later version) is left out, not fatal.
      try {
        views.push({ name: normaliseViewName(entry.name), filter: normaliseViewFilter(entry.filter), createdAt: typeof entry.createdAt === 'number' ? entry.createdAt : 0 });
      } catch (error) {
        if (!(error instanceof InvalidInputError)) throw error;
      }
    }
    this.views = views;
    return views;
  }

  private save(views: SavedView[]): void {
    writeJsonFile(this.path, { version: 1, views } satisfies ViewsDocument);
    this.views = views;
  }

  /** By name, as the sidebar lists them. */
  list(): SavedView[] {
    return [...this.load()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** A new view; a name already used (whatever its case) is a conflict, not a silent overwrite. */
  add(rawName: unknown, rawFilter: unknown, now: number): SavedView {
    const name = normaliseViewName(rawName);
    const filter = normaliseViewFilter(rawFilter);
    const current = this.load();
    if (current.some((view) => sameName(view.name, name))) throw new ConflictError(`a view named “${name}” exists already: pick another name or delete it first`);
    if (current.length >= MAX_VIEWS) throw new ConflictError(`at most ${MAX_VIEWS} saved views: delete one first`);
    const view = { name, filter, createdAt: now };
    this.save([...current, view]);
    return view;
  }

  delete(rawName: unknown): SavedView {
    const name = normaliseViewName(rawName);
    const current = this.load();
    const found = current.find((view) => sameName(view.name, name));
    if (!found) throw new NotFoundError(`no view named “${name}”`);
    this.save(current.filter((view) => view !== found));
    return found;
  }
}
