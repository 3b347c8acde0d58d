import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '../errors.js';
import { isProjectId } from '../ids.js';

/** `My App!` → `my-app`; accents folded, anything else becomes a dash. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug || 'project';
}

export function assertProjectName(name: unknown): string {
  if (typeof name !== 'string') throw new InvalidInputError('project name must be a string');
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new InvalidInputError('project name is empty');
  if (Array.from(trimmed).length > 200) throw new InvalidInputError('project name is longer than 200 characters');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw new InvalidInputError('project name contains control characters');
  return trimmed;
}

/** A new project's id: its name's slug and six random hex digits, none `taken` yet. */
export function newProjectId(name: string, taken: (id: string) => boolean): string {
  const slug = slugify(name);
  for (;;) {
    const id = `${slug}-${randomBytes(3).toString('hex')}`;
    if (!taken(id) && isProjectId(id)) return id;
  }
}
