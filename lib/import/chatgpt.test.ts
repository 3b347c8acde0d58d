import { createReadStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseChatGpt, type ChatGptItem } from './chatgpt.js';
import { TruncatedArrayError, arrayElements } from './json-array.js';
import { NotThisFormatError, type ParsedSession } from './types.js';
import { fixture } from './testing/fixtures.js';

async function collect(items: AsyncIterable<ChatGptItem>) {
  const sessions: ParsedSession[] = [];
  const skipped = [];
  for await (const item of items) {
    if ('session' in item) sessions.push(item.session);
    else skipped.push(item.skipped);
  }
  return { sessions, skipped };
}

async function* chunked(text: string, size: number) {
  for (let at = 0; at < text.length; at += size) yield Buffer.from(text.slice(at, at + size));
}

function branchOf(session: ParsedSession) {
  const byId = new Map(session.turns.flat().map((node) => [node.id, node]));
  const path = [];
  for (let at = session.headId; at; at = byId.get(at)?.parentId ?? null) path.unshift(byId.get(at)!);
  return path;
}

const suffix = (id: string) => id.slice(-2);

describe('ChatGPT exports', () => {
  it('rebuilds the three sample conversations with every branch, hidden nodes left out', async () => {
    const { sessions, skipped } = await collect(parseChatGpt(createReadStream(fixture('chatgpt', 'conversations.json')), { file: 'conversations.json' }));
    expect(skipped).toEqual([]);
    expect(sessions.map((session) => [session.id, session.title])).toEqual([
      ['chatgpt-6a1f0c2e-5b7d-4e8f-9a0b-1c2d3e4f5a03', 'Plant identification'],
      ['chatgpt-6a1f0c2e-5b7d-4e8f-9a0b-1c2d3e4f5a02', 'ISO date regex'],
      ['chatgpt-6a1f0c2e-5b7d-4e8f-9a0b-1c2d3e4f5a01', 'Sourdough starter smell'],
    ]);
    const [c, b, a] = sessions as [ParsedSession, ParsedSession, ParsedSession];

    // A: the edited user message is a fork under a3; the current path takes the edit
    expect(branchOf(a).map((node) => suffix(node.id))).toEqual(['a2', 'a3', 'a6', 'a7', 'a8', 'a9']);
    expect(a.turns.flat().filter((node) => node.parentId?.endsWith('a3')).map((node) => suffix(node.id))).toEqual(['a4', 'a6']);
    expect(a.turns.flat().some((node) => node.id.endsWith('a1') || node.id === 'client-created-root')).toBe(false);
    expect(branchOf(a)[0]!.parentId).toBeNull();
    expect(a.createdAt).toBeCloseTo(1794988800.12, 2);

    // B: the regenerated answer is a fork under b2; its python call and output are a tool call
    expect(branchOf(b).map((node) => `${node.role}:${suffix(node.id)}`)).toEqual(['user:b2', 'assistant:b4', 'assistant:b6', 'user:b7', 'assistant:b8']);
    expect(b.turns.flat().filter((node) => node.parentId?.endsWith('b2')).map((node) => suffix(node.id))).toEqual(['b3', 'b4']);
    const tool = b.turns.flat().find((node) => node.role === 'tool')!;
    expect(tool).toMatchObject({ name: 'python', content: '[True, False, False]' });
    expect(tool.calledBy!.endsWith('b4')).toBe(true);
    expect(String(tool.input)).toContain('import re');

    // C: custom instructions and reasoning are no messages; the image is kept as metadata
    expect(branchOf(c).map((node) => [node.role, node.content])).toEqual([
      ['user', 'What plant is this and will it survive on my windowsill?'],
      ['assistant', expect.stringMatching(/^It looks like a baby rubber plant/)],
    ]);
    expect(branchOf(c)[0]!.metadata!['images']).toEqual([{ asset_pointer: 'file-service://file-Fx7Qk2Lm9Np4Rs1Tv6Wy3Zb', width: 1024, height: 768 }]);
    expect(branchOf(c)[1]!.metadata!['reasoning']).toEqual(expect.stringContaining('Thought for 9s'));
  });

  it('reads the array in small chunks the same way (element edges across chunks, strings with brackets)', async () => {
    const text = JSON.stringify([{ a: '],[{"' }, [1, [2]], 'x,y', { b: { c: '\\"}' } }]);
    const elements = [];
    for await (const element of arrayElements(chunked(text, 3))) elements.push(JSON.parse(element.text));
    expect(elements).toEqual(JSON.parse(text));
  });

  it('reports wrong-shaped entries by their 1-based index and imports the rest', async () => {
    const good = { id: 'g1', title: 'ok', create_time: 1794988800, mapping: { r: { id: 'r', message: null, parent: null, children: ['m'] }, m: { id: 'm', parent: 'r', children: [], message: { id: 'm', author: { role: 'user' }, create_time: 1794988801, content: { content_type: 'text', parts: ['hello'] } } } } };
    const text = JSON.stringify([{ id: 'x' }, 42, good]);
    const { sessions, skipped } = await collect(parseChatGpt(chunked(text, 64), { file: 'conversations.json' }));
    expect(skipped.map((entry) => [entry.line, entry.reason])).toEqual([
      [1, 'conversation x has no mapping'],
      [2, 'not a conversation object'],
    ]);
    expect(sessions.map((session) => session.turns.flat().map((node) => node.content))).toEqual([['hello']]);
  });

  it('without current_node, the branch ends at the newest leaf the root reaches; a node cut off from the root is kept off it', async () => {
    const message = (id: string, role: string, time: number, text: string) => ({ id, author: { role }, create_time: time, content: { content_type: 'text', parts: [text] } });
    const conversation = {
      id: 'no-current',
      title: 'no current node',
      create_time: 1794988800,
      mapping: {
        r: { id: 'r', message: null, parent: null, children: ['u1'] },
        u1: { id: 'u1', parent: 'r', children: ['a1'], message: message('u1', 'user', 1794988801, 'question') },
        a1: { id: 'a1', parent: 'u1', children: [], message: message('a1', 'assistant', 1794988802, 'answer') },
        // newer, but its parent is not in the mapping
        lost: { id: 'lost', parent: 'gone', children: [], message: message('lost', 'assistant', 1794988900, 'cut off') },
      },
    };
    const { sessions } = await collect(parseChatGpt(chunked(JSON.stringify([conversation]), 4096), { file: 'conversations.json' }));
    const [session] = sessions;
    expect(branchOf(session!).map((node) => node.content)).toEqual(['question', 'answer']);
    expect(session!.turns.flat().map((node) => node.content)).toContain('cut off');
  });

  it('a truncated file is a file-level error; a file that is no array is refused', async () => {
    await expect(collect(parseChatGpt(createReadStream(fixture('chatgpt', 'broken-truncated.json')), { file: 'broken-truncated.json' }))).rejects.toBeInstanceOf(TruncatedArrayError);
    await expect(collect(parseChatGpt(chunked('{"not": "an array"}', 8), { file: 'x.json' }))).rejects.toBeInstanceOf(NotThisFormatError);
  });
});
