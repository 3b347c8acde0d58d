import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createToken, e2eScratchDir, expect, freshDataDir, MODEL_URL, query, startServerSignedIn, test } from '../fixtures';
import { CLAUDE, runAgent } from '../fixtures/real-agents';

// DESIGN §17 / issue 36 item 1: `entity-memory collect` on a second "machine" (its own HOME)
// sends the real Claude Code's transcript to a server of its own (restarted in the test) as it
// is written; killing the collector (SIGKILL) and restarting it, and then restarting the server
// while the agent goes on, loses nothing and duplicates nothing.

const BIN = join(process.cwd(), 'cli', 'bin.mjs');
const MACHINE = 'laptop-2';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

interface Collector {
  child: ChildProcess;
  output(): string;
}

/** `entity-memory collect` as the second machine runs it: its own HOME, nothing but the server and token. */
function startCollector(home: string, server: string, token: string): Collector {
  const child = spawn(process.execPath, [BIN, 'collect', '--server', server, '--token', token, '--name', MACHINE], {
    env: { NODE_ENV: 'production', PATH: process.env.PATH ?? '', HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { child, output: () => text };
}

/** The real Claude Code against the loopback model directly (not through the server: the collector is the way in). */
async function claude(home: string, cwd: string, args: string[]): Promise<void> {
  const env = {
    HOME: home,
    ANTHROPIC_BASE_URL: MODEL_URL.replace(/\/v1$/, ''),
    ANTHROPIC_API_KEY: 'sk-ant-loopback-collect',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  const run = await runAgent(CLAUDE, ['-p', ...args], env, cwd).done;
  expect(run.code, run.output).toBe(0);
}

/** What the transcript holds, read here on its own: typed prompts and one answer per API message. */
function transcriptMessages(file: string): string[] {
  const texts: string[] = [];
  const answers = new Set<string>();
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    if (raw.trim() === '') continue;
    const record = JSON.parse(raw) as { type?: string; isMeta?: boolean; message?: { id?: string; content?: unknown } };
    const content = record.message?.content;
    if (record.type === 'user' && record.isMeta !== true && typeof content === 'string') texts.push(content);
    if (record.type === 'assistant' && record.message?.id && !answers.has(record.message.id)) {
      answers.add(record.message.id);
      texts.push((content as { type: string; text?: string }[]).filter((block) => block.type === 'text').map((block) => block.text).join('\n\n'));
    }
  }
  return texts;
}

test('collect: a Claude Code run on a second machine is in the server’s list within 5 s with the machine’s name; a killed collector and a restarted server lose and duplicate nothing', async () => {
  test.setTimeout(420_000);
  const port = await freePort();
  const dataDir = freshDataDir();
  const admin = { email: 'collect-admin@e2e.test', password: 'collect-admin-password' };
  let { server, api } = await startServerSignedIn({ port, dataDir, admin });
  const scratch = mkdtempSync(join(e2eScratchDir(), 'collect-'));
  const home = join(scratch, 'laptop-2-home');
  const work = join(scratch, 'work');
  mkdirSync(home);
  mkdirSync(work);
  const folder = realpathSync(work);
  const collectors: Collector[] = [];
  try {
    const { token } = await createToken(api, 'collector on laptop-2');
    // A machine name the import refuses: 400 with the reason, nothing written (the one row at the end is the collector's).
    const stray = JSON.stringify({ type: 'user', uuid: 'stray-1', parentUuid: null, sessionId: randomUUID(), timestamp: '2026-12-01T10:00:00.000Z', message: { role: 'user', content: 'never imported' } });
    const refused = await api.post(`/api/import?name=stray.jsonl&machine=${encodeURIComponent('bad\u0001name')}`, { data: `${stray}\n`, headers: { authorization: `Bearer ${token}` } });
    expect(refused.status()).toBe(400);
    expect(await refused.text()).toContain('machine: the machine name holds a control character');
    collectors.push(startCollector(home, server.url, token));
    const uuid = randomUUID();
    const id = `cc-${uuid}`;
    const listed = async () => (await query<{ rows: { id: string; machine: string | null }[] }>(api, 'session.list', { scope: 'all' })).data.rows.filter((row) => row.id === id);
    const messages = async () => {
      const answer = await query<{ messages: { content: unknown }[] }>(api, 'message.nodes', { sessionId: id, limit: 200 });
      return answer.status === 200 ? answer.data.messages.map((message) => message.content) : [];
    };

    await claude(home, folder, ['--session-id', uuid, '--', 'remember the word pelican']);
    const transcript = join(home, '.claude', 'projects', readdirSync(join(home, '.claude', 'projects'))[0]!, `${uuid}.jsonl`);
    expect(existsSync(transcript)).toBe(true);
    // The bound of the issue: in the list within 5 s of the run's end, with the machine's name.
    await expect.poll(listed, { timeout: 5_000, intervals: [100] }).toEqual([expect.objectContaining({ id, machine: MACHINE })]);
    await expect.poll(messages, { timeout: 5_000 }).toEqual(transcriptMessages(transcript));
    expect(transcriptMessages(transcript)).toEqual(['remember the word pelican', 'You said: remember the word pelican']);

    // The collector killed outright (no chance to save anything more) while the agent writes its next turn.
    const before = statSync(transcript).size;
    const second = claude(home, folder, ['--resume', uuid, '--', 'now remember the word walrus']);
    await expect.poll(() => statSync(transcript).size, { timeout: 120_000 }).toBeGreaterThan(before);
    collectors[0]!.child.kill('SIGKILL');
    await new Promise((resolve) => collectors[0]!.child.once('exit', resolve));
    await second;
    collectors.push(startCollector(home, server.url, token));
    await expect.poll(messages, { timeout: 30_000 }).toEqual(transcriptMessages(transcript));
    expect(transcriptMessages(transcript)).toHaveLength(4);

    // The server stopped: the agent goes on, the collector waits for it and sends when it is back.
    await api.dispose();
    await server.stop();
    await claude(home, folder, ['--resume', uuid, '--', 'and the word okapi']);
    ({ server, api } = await startServerSignedIn({ port, dataDir, admin, createAdmin: false }));
    await expect.poll(messages, { timeout: 90_000 }).toEqual(transcriptMessages(transcript));
    const final = transcriptMessages(transcript);
    expect(final).toHaveLength(6);
    expect(final.slice(4)).toEqual(['and the word okapi', 'You said: and the word okapi']);
    expect(collectors[1]!.output()).toMatch(/did not answer|answered 50\d/);
    expect(await listed()).toEqual([expect.objectContaining({ id, machine: MACHINE })]);
    // One session, each message once.
    const all = await messages();
    expect(new Set(all.map((content) => JSON.stringify(content))).size).toBe(all.length);
    expect((await query<{ rows: unknown[] }>(api, 'session.list', { scope: 'all' })).data.rows).toHaveLength(1);
  } finally {
    for (const collector of collectors) collector.child.kill('SIGKILL');
    await api.dispose();
    await server.stop();
  }
});
