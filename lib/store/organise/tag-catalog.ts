import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { atomicWriteFileSync } from '../../fs/atomic-write.js';
import { InvalidInputError } from '../errors.js';
import type { RegistryEntry } from '../types.js';
import { normaliseTagName, tagsOf } from './tags.js';

/** The colours a tag may have: names, not CSS, so nothing a user sends reaches a style attribute. */
export const TAG_COLOURS = ['gray', 'red', 'orange', 'yellow', 'green', 'teal', 'blue', 'purple', 'pink'] as const;
export type TagColour = (typeof TAG_COLOURS)[number];

export interface TagSummary {
  name: string;
  colour: TagColour;
  /** sessions not archived that hold it */
  sessions: number;
}

/** `users/<id>/tags.json`: a colour per tag the user chose one for (DESIGN §16). */
export const TAGS_FILE = 'tags.json';

interface TagsDocument {
  colours: Record<string, TagColour>;
}

/** A tag nobody gave a colour gets one from its name, the same every time. */
export function defaultColour(name: string): TagColour {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.codePointAt(0)!) >>> 0;
  return TAG_COLOURS[1 + (hash % (TAG_COLOURS.length - 1))]!;
}

function isColour(value: unknown): value is TagColour {
  return typeof value === 'string' && (TAG_COLOURS as readonly string[]).includes(value);
}

/** One user's tag colours, read once and written whole (a handful of entries). */
export class TagCatalog {
  private colours: Map<string, TagColour> | null = null;

  constructor(private readonly stateDir: string) {}

  private get path(): string {
    return join(this.stateDir, TAGS_FILE);
  }

  private load(): Map<string, TagColour> {
    if (this.colours) return this.colours;
    const colours = new Map<string, TagColour>();
    let text: string | null = null;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text !== null) {
      const doc = JSON.parse(text) as Partial<TagsDocument>;
      for (const [name, colour] of Object.entries(doc.colours ?? {})) if (isColour(colour)) colours.set(name, colour);
    }
    this.colours = colours;
    return colours;
  }

  colourOf(name: string): TagColour {
    return this.load().get(name) ?? defaultColour(name);
  }

  setColour(rawName: unknown, colour: unknown): { name: string; colour: TagColour } {
    const name = normaliseTagName(rawName);
    if (!isColour(colour)) throw new InvalidInputError(`colour must be one of ${TAG_COLOURS.join(', ')}`);
    const colours = new Map(this.load());
    colours.set(name, colour);
    atomicWriteFileSync(this.path, `${JSON.stringify({ colours: Object.fromEntries(colours) } satisfies TagsDocument, null, 2)}\n`);
    this.colours = colours;
    return { name, colour };
  }

  /** Every tag a session not archived holds (or that has a colour), with its count, by name. */
  summarise(entries: Iterable<RegistryEntry>): TagSummary[] {
    const counts = new Map<string, number>();
    for (const entry of entries) {
      if (entry.archived) continue;
      for (const tag of tagsOf(entry['tags'])) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    }
    for (const name of this.load().keys()) if (!counts.has(name)) counts.set(name, 0);
    return [...counts]
      .map(([name, sessions]) => ({ name, colour: this.colourOf(name), sessions }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}
