import { runGit } from '../git/git-cli.js';
import { InvalidInputError, NotFoundError, PreconditionError } from '../errors.js';
import { ensureCommitState } from '../session/commit-state.js';
import { withSession } from '../session/session-access.js';
import type { OpenSession, StoreContext } from '../session/store-context.js';
import { checkNoteText, NOTES_REF, parseNote, serialiseNote, targetKey, type NoteTarget } from '../organise/notes-format.js';
import { gitdirOf, SESSION_AUTHOR } from '../repo/session-git.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A note as session.get lists it: on the session (messageId null) or a message, and the turn commit it is attached to. */
export interface SessionNote {
  messageId: string | null;
  text: string;
  commit: string;
}

function noteEnv(ctx: StoreContext): Record<string, string> {
  const date = `${Math.floor(ctx.now())} +0000`;
  return {
    GIT_AUTHOR_NAME: SESSION_AUTHOR.name,
    GIT_AUTHOR_EMAIL: SESSION_AUTHOR.email,
    GIT_COMMITTER_NAME: SESSION_AUTHOR.name,
    GIT_COMMITTER_EMAIL: SESSION_AUTHOR.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  };
}

/** The commit a note goes on: the root (session init) for the session's, the turn commit that added the message for a message's. */
async function commitOf(session: OpenSession, target: NoteTarget): Promise<string> {
  const state = await ensureCommitState(session);
  if (!state.head) throw new PreconditionError('the session has no commit yet');
  if (target.kind === 'session') {
    const { stdout } = await runGit(session.dir, ['rev-list', '--max-parents=0', '--first-parent', state.head]);
    const root = stdout.toString('latin1').trim().split('\n').pop();
    if (!root) throw new PreconditionError('the session has no root commit');
    return root;
  }
  const fileName = session.fileNames.get(target.messageId);
  if (!fileName) throw new NotFoundError(`unknown message: ${target.messageId}`);
  if (session.uncommitted.includes(fileName)) throw new PreconditionError('the message is not in a turn commit yet: note it once the turn has ended');
  const { stdout } = await runGit(session.dir, ['log', '--format=%H', '--diff-filter=A', '--no-renames', state.head, '--', `history/${fileName}`]);
  const sha = stdout.toString('latin1').trim().split('\n').pop();
  if (!sha) throw new PreconditionError('the message is not in a turn commit yet');
  return sha;
}

async function readNote(dir: string, sha: string): Promise<Map<string, string>> {
  const { stdout, code } = await runGit(dir, ['notes', `--ref=${NOTES_REF}`, 'show', sha], { okCodes: [0, 1] });
  return code === 0 ? parseNote(stdout.toString('utf8')) : new Map();
}

async function writeNote(ctx: StoreContext, dir: string, sha: string, sections: Map<string, string>): Promise<void> {
  if (sections.size === 0) {
    await runGit(dir, ['notes', `--ref=${NOTES_REF}`, 'remove', '--ignore-missing', sha], { env: noteEnv(ctx) });
    return;
  }
  await runGit(dir, ['notes', `--ref=${NOTES_REF}`, 'add', '-f', '-F', '-', sha], { env: noteEnv(ctx), input: serialiseNote(sections) });
}

/**
 * A note set (or, with text null, deleted) as a git note on the commit that holds its message:
 * the history keeps its commit ids, and the notes ref has a commit per change (the note's own history).
 */
export async function setNote(ctx: StoreContext, sessionId: string, target: NoteTarget, rawText: string | null): Promise<SessionNote | null> {
  const text = rawText === null ? null : checkNoteText(rawText);
  if (target.kind === 'message' && !/^[A-Za-z0-9_-]{1,64}$/.test(target.messageId)) throw new InvalidInputError('invalid message id');
  return withSession(ctx, sessionId, async (session) => {
    const sha = await commitOf(session, target);
    const sections = await readNote(session.dir, sha);
    const key = targetKey(target);
    if (text === null) {
      if (!sections.delete(key)) throw new NotFoundError(target.kind === 'session' ? 'the session has no note' : `message ${target.messageId} has no note`);
    } else sections.set(key, text);
    await writeNote(ctx, session.dir, sha, sections);
    const messageId = target.kind === 'message' ? target.messageId : null;
    ctx.events.emit('note_changed', { sessionId, messageId, text });
    return text === null ? null : { messageId, text, commit: sha };
  });
}

/** Whether the repo has a notes ref at all, from its files: most sessions have none, and a git process each would slow every whole read of the search index. */
function hasNotesRef(dir: string): boolean {
  const gitDir = gitdirOf(dir);
  if (existsSync(join(gitDir, NOTES_REF))) return true;
  try {
    return readFileSync(join(gitDir, 'packed-refs'), 'utf8').includes(NOTES_REF);
  } catch {
    return false;
  }
}

/** Every note of a session, the session's first, then by commit. */
export function listNotes(ctx: StoreContext, sessionId: string): Promise<SessionNote[]> {
  return withSession(ctx, sessionId, async (session) => {
    if (!hasNotesRef(session.dir)) return [];
    const { stdout, code } = await runGit(session.dir, ['notes', `--ref=${NOTES_REF}`, 'list'], { okCodes: [0, 1, 128] });
    if (code !== 0) return [];
    const notes: SessionNote[] = [];
    for (const line of stdout.toString('latin1').trim().split('\n')) {
      const commit = line.split(' ')[1];
      if (!commit) continue;
      for (const [key, text] of await readNote(session.dir, commit)) {
        notes.push({ messageId: key === 'session' ? null : key.slice('message '.length), text, commit });
      }
    }
    return notes.sort((a, b) => (a.messageId === null ? -1 : b.messageId === null ? 1 : 0));
  });
}
