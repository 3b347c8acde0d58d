import { InvalidInputError } from '../errors.js';

/** DESIGN §16: a note is Markdown of at most 64 KiB. */
export const MAX_NOTE_BYTES = 64 * 1024;
/** The git notes ref of a session repo that holds them. */
export const NOTES_REF = 'refs/notes/entity-memory';

/**
 * One git note per commit, so the notes of the messages a turn commit holds (and the session's
 * own, on the root commit) share it: each is a section opened by a marker line, readable as
 * Markdown in `git notes show`.
 */
const MARKER = /^<!-- entity-memory:(session|message ([A-Za-z0-9_-]{1,64})) -->$/;
const MARKER_PREFIX = '<!-- entity-memory:';

/** A note's key in its commit: the session's, or a message's id. */
export type NoteTarget = { kind: 'session' } | { kind: 'message'; messageId: string };

export function targetKey(target: NoteTarget): string {
  return target.kind === 'session' ? 'session' : `message ${target.messageId}`;
}

export function checkNoteText(raw: unknown): string {
  if (typeof raw !== 'string') throw new InvalidInputError('a note must be text');
  const text = raw.replace(/\r\n?/g, '\n').trim();
  if (text === '') throw new InvalidInputError('a note must not be empty (delete it instead)');
  if (Buffer.byteLength(text, 'utf8') > MAX_NOTE_BYTES) throw new InvalidInputError('a note is at most 64 KiB');
  if (text.split('\n').some((line) => line.startsWith(MARKER_PREFIX))) throw new InvalidInputError('a note line must not start with <!-- entity-memory:');
  return text;
}

/** The sections of one commit's note, by key ("session" or "message <id>"), in order. */
export function parseNote(body: string): Map<string, string> {
  const sections = new Map<string, string>();
  let key: string | null = null;
  let lines: string[] = [];
  const flush = () => {
    if (key !== null) sections.set(key, lines.join('\n').trim());
  };
  for (const line of body.split('\n')) {
    const marker = MARKER.exec(line);
    if (marker) {
      flush();
      key = marker[1]!;
      lines = [];
    } else lines.push(line);
  }
  flush();
  return sections;
}

export function serialiseNote(sections: Map<string, string>): string {
  return [...sections].map(([key, text]) => `<!-- entity-memory:${key} -->\n${text}\n`).join('\n');
}
