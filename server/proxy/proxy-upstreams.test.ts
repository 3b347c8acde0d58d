import { describe, expect, it } from 'vitest';
import { dataDir, model, nextRecording, origin, runtime, users, useProxyHarness, WRITE } from './testing/proxy-harness';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

useProxyHarness();

describe('users\' upstreams on internal addresses (SSRF)', () => {
  it('are refused at connect time, by name (resolved) or by address, in the provider shape, with nothing sent; the admin\'s own default is not', async () => {
    const [a] = users;
    const port = new URL(model.url).port;
    const upstreams = runtime.getProxyUpstreams();
    // Set straight in the file, as one set before the check (or a name that resolves elsewhere now) would be.
    upstreams.set(a!.id, { name: 'byname', kind: 'openai', baseUrl: `http://localhost:${port}/v1` });
    upstreams.set(a!.id, { name: 'byaddress', kind: 'openai', baseUrl: `http://127.0.0.2:${port}/v1` });
    const before = model.requests.length;
    for (const name of ['byname', 'byaddress']) {
      const refused = await fetch(`${origin}/proxy/${name}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-entity-memory-token': a!.token, authorization: 'Bearer sk-own' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }) });
      expect(refused.status).toBe(502);
      const body = (await refused.json()) as { error: { message: string } };
      expect(body.error.message).toMatch(/internal address.*OPENPROGRAM_PROXY_ALLOW_PRIVATE=1/);
    }
    expect(model.requests.length).toBe(before);
    const waiting = nextRecording(a!.id);
    const allowed = await fetch(`${origin}/proxy/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-entity-memory-token': a!.token, authorization: 'Bearer sk-own' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'to the default' }] }) });
    expect(allowed.status).toBe(200);
    await waiting;
    expect(model.requests.length).toBe(before + 1);
  });
});

describe('a scripted sequence of ten calls gives the expected DAG', () => {
  it('retry → sibling, parallel tools → tool nodes, edit → fork, compaction → linked continuation, normalised resend → sibling', async () => {
    const [, b] = users;
    const call = async (messages: unknown[]) => {
      const waiting = nextRecording(b!.id);
      const response = await fetch(`${origin}/proxy/anthropic/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-entity-memory-token': b!.token, 'x-api-key': 'sk-own', 'x-entity-memory-session': 'dag' },
        body: JSON.stringify({ model: 'claude-test', max_tokens: 50, stream: true, tools: [WRITE, { name: 'Read', input_schema: { type: 'object' } }], system: 'sys', messages }),
      });
      const events = (await response.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as Record<string, any>);
      await waiting;
      // the reply as the agent would send it back next time
      const blocks: Record<string, unknown>[] = [];
      for (const event of events) {
        if (event.type === 'content_block_start') blocks[event.index] = { ...event.content_block };
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') blocks[event.index]!.text = `${blocks[event.index]!.text as string}${event.delta.text as string}`;
        if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') blocks[event.index]!.json = `${(blocks[event.index]!.json as string | undefined) ?? ''}${event.delta.partial_json as string}`;
      }
      return { role: 'assistant', content: blocks.map(({ json, ...block }) => (json ? { ...block, input: JSON.parse(json as string) } : block)) };
    };
    const u = (text: string) => ({ role: 'user', content: text });
    const u1 = u('plan a trip');
    const a1 = await call([u1]); // 1
    const u2 = u('to Lyon');
    await call([u1, a1, u2]); // 2
    const a2b = await call([u1, a1, u2]); // 3: a retry
    const u3 = u('book it [[tool:Write {"file_path":"t.txt","content":"x"}]] [[tool:Read {"file_path":"t.txt"}]]');
    const a3 = await call([u1, a1, u2, a2b, u3]); // 4: parallel tool calls
    const ids = (a3.content as { type: string; id: string }[]).filter((block) => block.type === 'tool_use').map((block) => block.id);
    const results = { role: 'user', content: ids.map((id, index) => ({ type: 'tool_result', tool_use_id: id, content: `result ${index + 1}` })) };
    await call([u1, a1, u2, a2b, u3, a3, results]); // 5: the results and the answer
    const u2x = u('to Nice instead');
    const a2x = await call([u1, a1, u2x]); // 6: an edit of message 3
    await call([u1, a1, u2x, a2x, u('by train')]); // 7
    const summary = u('This session is being continued from a previous conversation. Summary: a trip to Nice.');
    const s1 = await call([summary]); // 8: a compaction
    const u4 = u('and a hotel');
    await call([summary, s1, u4]); // 9
    // 10: the same again as a resumed agent sends it: block content, cache_control, a reminder
    const blocked = (message: { role: string; content: string }) => ({ role: message.role, content: [{ type: 'text', text: message.content, cache_control: { type: 'ephemeral' } }] });
    await call([blocked(summary), s1, { role: 'user', content: [{ type: 'text', text: '<system-reminder>today is Tuesday</system-reminder>' }, { type: 'text', text: 'and a hotel' }] }]);

    const store = await runtime.getUserStore(b!.id);
    const nodes = await store.getNodes('dag');
    const conversation = nodes.filter((node) => node.role !== 'tool');
    expect(conversation).toHaveLength(17); // ten replies and seven user messages
    const byContent = (text: string) => conversation.filter((node) => node.content === text);
    const [a1Node] = byContent('You said: plan a trip');
    const [u2Node] = byContent('to Lyon');
    expect(byContent('You said: to Lyon')).toHaveLength(2); // the retry is a sibling
    expect(byContent('You said: to Lyon').map((node) => node.parentId)).toEqual([u2Node!.id, u2Node!.id]);
    const [u2xNode] = byContent('to Nice instead');
    expect(u2xNode!.parentId).toBe(a1Node!.id); // the edit forks after the first answer
    const toolCaller = conversation.find((node) => Array.isArray(node.metadata['tool_calls']))!;
    expect(nodes.filter((node) => node.calledBy === toolCaller.id).map((node) => [node.name, node.content])).toEqual([
      ['Write', 'result 1'],
      ['Read', 'result 2'],
    ]);
    const [toolAnswer] = byContent('Tool result: result 1 | result 2');
    expect(toolAnswer!.parentId).toBe(toolCaller.id);
    const [summaryNode] = byContent(summary.content);
    const [trainAnswer] = byContent('You said: by train');
    expect(summaryNode!.metadata['continuation_of']).toBe(trainAnswer!.id);
    expect(summaryNode!.parentId).toBe(trainAnswer!.id);
    const hotel = byContent('You said: and a hotel');
    expect(hotel).toHaveLength(2); // call 10 is the same history: a sibling, not a fork
    expect(byContent('and a hotel')).toHaveLength(1);
    const branch = await store.getBranch('dag');
    expect(branch.at(-1)!.id).toBe(hotel[1]!.id);
    expect(branch.map((message) => message.content).slice(0, 3)).toEqual(['plan a trip', 'You said: plan a trip', 'to Nice instead']);
    expect((await store.listBranches('dag')).length).toBe(4);
    expect((await store.getSession('dag')).turnCount).toBe(10);
    const dir = join(dataDir, 'users', b!.id, 'sessions', 'dag', 'context', 'system');
    expect(readdirSync(dir)).toHaveLength(1); // one system prompt, ten requests
  });
});
