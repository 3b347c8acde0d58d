import { readdirSync } from 'node:fs';

/** The names of a directory's subdirectories, sorted; none when it cannot be read (gone, not a directory). */
export function childDirectories(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}
