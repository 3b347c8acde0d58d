import { describe, expect, it } from 'vitest';
import { runGit } from '../git/git-cli.js';
import { InvalidInputError, PreconditionError } from '../errors.js';
import type { StoreEvent } from '../events.js';
import { NOTES_REF } from '../organise/notes-format.js';
import { SessionStore } from '../session-store.js';
import { tempStoresPerTest } from '../testing/temp-store.js';

const git = async (dir: string, args: string[]) => (await runGit(dir, args)).stdout.toString('utf8').trim();

describe('notes as git notes (DESIGN §16)', () => {
  const fresh = tempStoresPerTest();

  async function twoTurns() {
    const temp = await fresh();
    const { store } = temp;
    await store.createSession({ id: 'noted' });
    const ids: string[] = [];
    for (const text of ['first question', 'second question']) {
      await store.beginTurn('noted');
      ids.push((await store.appendMessage('noted', { role: 'user', content: text })).id);
      ids.push((await store.appendMessage('noted', { role: 'assistant', content: `answer to ${text}` })).id);
      await store.finalizeTurn('noted');
    }
    return { ...temp, ids, repo: `${temp.dir}/sessions/noted` };
  }

  it('a note on a message goes on the turn commit that added it; commit ids stay; the notes ref keeps a history', async () => {
    const { store, ids, dir } = await twoTurns();
    const repo = `${dir}/sessions/noted`;
    const before = await git(repo, ['rev-list', 'HEAD']);
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    const first = await store.setNote('noted', { kind: 'message', messageId: ids[1]! }, 'Why this **matters**');
    await store.setNote('noted', { kind: 'message', messageId: ids[0]! }, 'the question');
    await store.setNote('noted', { kind: 'session' }, 'About the whole session');
    await store.setNote('noted', { kind: 'message', messageId: ids[1]! }, 'Why this **matters**, edited');
    expect(await git(repo, ['rev-list', 'HEAD'])).toBe(before);
    const firstTurn = await git(repo, ['log', '--format=%H', '--diff-filter=A', 'HEAD', '--', 'history']);
    expect(firstTurn.split('\n')).toContain(first!.commit);
    const shown = await git(repo, ['notes', `--ref=${NOTES_REF}`, 'show', first!.commit]);
    expect(shown).toContain('Why this **matters**, edited');
    expect(shown).toContain('the question');
    expect(Number(await git(repo, ['rev-list', '--count', NOTES_REF]))).toBe(4);
    const notes = await store.listNotes('noted');
    expect(notes.map((note) => [note.messageId, note.text])).toEqual(
      expect.arrayContaining([[null, 'About the whole session'], [ids[1], 'Why this **matters**, edited'], [ids[0], 'the question']]),
    );
    expect(notes[0]!.messageId).toBeNull();
    expect(events.filter((event) => event.type === 'note_changed')).toHaveLength(4);
    await store.setNote('noted', { kind: 'message', messageId: ids[0]! }, null);
    expect((await store.listNotes('noted')).map((note) => note.messageId)).not.toContain(ids[0]);
  });

  it('refuses empty, too large, marker-forging text and a message not committed yet; survives a reopen', async () => {
    const { store, ids, dir } = await twoTurns();
    for (const text of ['  ', 'x'.repeat(64 * 1024 + 1), 'a\n<!-- entity-memory:session -->']) {
      await expect(store.setNote('noted', { kind: 'message', messageId: ids[0]! }, text)).rejects.toBeInstanceOf(InvalidInputError);
    }
    await store.beginTurn('noted');
    const open = await store.appendMessage('noted', { role: 'user', content: 'mid-turn' });
    await expect(store.setNote('noted', { kind: 'message', messageId: open.id }, 'too soon')).rejects.toBeInstanceOf(PreconditionError);
    await store.finalizeTurn('noted');
    await store.setNote('noted', { kind: 'message', messageId: open.id }, 'now it is kept');
    await store.close();
    const reopened = await SessionStore.open({ stateDir: dir, debounceMs: 50 });
    expect((await reopened.listNotes('noted')).map((note) => note.text)).toContain('now it is kept');
    await reopened.close();
  });
});
