import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempStoresPerTest } from '../testing/temp-store.js';
import { describeChatSettings, parseChatSettings } from './chat-settings.js';

describe('a chat\'s model and system prompt', () => {
  const fresh = tempStoresPerTest();

  it('keeps them in context/chat.json, notes each change in the graph, and the next turn commits them', async () => {
    const { store, dir } = await fresh();
    await store.createSession({ id: 's' });
    expect(await store.getChatSettings('s')).toEqual({ model: null, systemPrompt: null });
    expect(await store.setChatSettings('s', { model: 'test-model', systemPrompt: '  Answer in French.  ' })).toEqual({ model: 'test-model', systemPrompt: 'Answer in French.' });
    const repo = join(dir, 'sessions', 's');
    expect(JSON.parse(readFileSync(join(repo, 'context', 'chat.json'), 'utf8'))).toEqual({ model: 'test-model', system_prompt: 'Answer in French.' });
    // The same again writes nothing; one field leaves the other.
    await store.setChatSettings('s', { model: 'test-model' });
    expect(await store.setChatSettings('s', { systemPrompt: null })).toEqual({ model: 'test-model', systemPrompt: null });
    const notes = (await store.getNodes('s')).filter((node) => node.name === 'chat/settings');
    expect(notes.map((node) => node.content)).toEqual(['Model: test-model; system prompt: "Answer in French."', 'Model: test-model; no system prompt']);
    expect((await store.getBranch('s')).length).toBe(0);

    await store.appendMessage('s', { role: 'user', content: 'bonjour' });
    await store.finalizeTurn('s');
    const committed = execFileSync('git', ['-C', repo, 'show', 'HEAD:context/chat.json'], { encoding: 'utf8' });
    expect(JSON.parse(committed)).toEqual({ model: 'test-model', system_prompt: null });
    const turn = (await store.listTurns('s')).commits[0]!;
    expect(turn.nodes.map((node) => node.name)).toEqual(expect.arrayContaining(['chat/settings']));
  });

  it('refuses what is too long or not text, writing nothing', async () => {
    const { store } = await fresh();
    await store.createSession({ id: 's' });
    await expect(store.setChatSettings('s', { systemPrompt: 'x'.repeat(20_001) })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(store.setChatSettings('s', { model: 'a\nb' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(store.setChatSettings('s', { model: 'm'.repeat(201) })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await store.getChatSettings('s')).toEqual({ model: null, systemPrompt: null });
    expect(await store.getNodes('s')).toEqual([]);
  });

  it('reads a damaged file as the defaults and says the settings in one line', () => {
    expect(parseChatSettings('{not json')).toEqual({ model: null, systemPrompt: null });
    expect(parseChatSettings('{"model":" m ","system_prompt":""}')).toEqual({ model: 'm', systemPrompt: null });
    expect(describeChatSettings({ model: null, systemPrompt: 'Be\nbrief' })).toBe('Model: the default; system prompt: "Be brief"');
  });
});
