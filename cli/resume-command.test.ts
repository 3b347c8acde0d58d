import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionStore } from '../lib/store/index.js';
import { run } from './main.js';

async function cli(dataDir: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(['--data', dataDir, ...args], { out: (line) => out.push(line), err: (line) => err.push(line) }, {} as NodeJS.ProcessEnv);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('entity-memory resume, on a data directory no server holds', () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.unstubAllEnvs();
    dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'em-resume-'));
    dirs.push(dir);
    return dir;
  };

  /** A session of two turns; the reply of the first is where a resume at turn 1 continues. */
  async function twoTurns(): Promise<{ data: string; userId: string; firstReply: string }> {
    const data = tempDir();
    const created = await cli(data, 'users', 'add', 'admin@resume.test', '--password', 'a long password', '--admin', '--json');
    const userId = (JSON.parse(created.out) as { id: string }).id;
    const store = await SessionStore.open({ stateDir: join(data, 'users', userId), workspaceRoot: join(data, 'workspaces', userId) });
    await store.createSession({ id: 'talk' });
    await store.appendMessage('talk', { role: 'user', content: 'first question' });
    const firstReply = (await store.appendMessage('talk', { role: 'assistant', content: 'first answer' })).id;
    await store.finalizeTurn('talk', { model: 'm' });
    await store.appendMessage('talk', { role: 'user', content: 'second question' });
    await store.appendMessage('talk', { role: 'assistant', content: 'second answer' });
    await store.finalizeTurn('talk', { model: 'm' });
    await store.close();
    return { data, userId, firstReply };
  }

  it('writes turn 1 as a Claude Code transcript under ~/.claude/projects/<slug>/ and prints the command', async () => {
    const { data, userId, firstReply } = await twoTurns();
    const home = tempDir();
    vi.stubEnv('HOME', home);
    vi.stubEnv('CLAUDE_CONFIG_DIR', '');
    const result = await cli(data, 'resume', 'talk', '--at', '1', '--cwd', '/srv/my proj');
    expect(result).toMatchObject({ code: 0, err: '' });
    const folder = join(home, '.claude', 'projects', '-srv-my-proj');
    const [file] = readdirSync(folder);
    const id = file!.replace(/\.jsonl$/, '');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(result.out.split('\n')).toEqual([`Wrote ${join(folder, file!)}: 2 messages of session talk up to turn 1`, `cd '/srv/my proj' && claude --resume ${id}`]);
    const lines = readFileSync(join(folder, file!), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; message: { content: unknown } });
    expect(lines.map((line) => [line.type, JSON.stringify(line.message.content)])).toEqual([
      ['user', '"first question"'],
      ['assistant', '[{"type":"text","text":"first answer"}]'],
    ]);
    // The link the recording proxy follows back: that agent session continues the first reply.
    const links = JSON.parse(readFileSync(join(data, 'users', userId, 'resume-links.json'), 'utf8')) as { agentSessionId: string; sessionId: string; nodeId: string; turn: number }[];
    expect(links).toMatchObject([{ agentSessionId: id, sessionId: 'talk', nodeId: firstReply, turn: 1 }]);
  });

  it('writes a Codex rollout under $CODEX_HOME/sessions/YYYY/MM/DD/', async () => {
    const { data } = await twoTurns();
    const codexHome = tempDir();
    vi.stubEnv('CODEX_HOME', codexHome);
    const result = await cli(data, 'resume', 'talk', '--agent', 'codex', '--cwd', '/srv/p', '--json');
    expect(result.code).toBe(0);
    const shown = JSON.parse(result.out) as { path: string; command: string; agentSessionId: string; turn: number; content?: string };
    expect(shown.path.startsWith(join(codexHome, 'sessions'))).toBe(true);
    expect(shown.path).toMatch(/\/sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[0-9a-f-]{36}\.jsonl$/);
    expect(shown).toMatchObject({ command: `cd /srv/p && codex resume ${shown.agentSessionId}`, turn: 2 });
    expect(shown.content).toBeUndefined();
    expect(readFileSync(shown.path, 'utf8')).toContain('"second answer"');
  });

  it('refuses a turn the session does not have, an unknown agent, an unknown session: nothing written', async () => {
    const { data, userId } = await twoTurns();
    const home = tempDir();
    vi.stubEnv('HOME', home);
    expect(await cli(data, 'resume', 'talk', '--at', '3')).toMatchObject({ code: 1, err: 'there is no turn 3: the last turn is 2' });
    expect((await cli(data, 'resume', 'talk', '--agent', 'gemini')).code).toBe(2);
    expect((await cli(data, 'resume', 'talk', '--at', 'two')).code).toBe(2);
    expect(await cli(data, 'resume', 'nope')).toMatchObject({ code: 1, err: 'no session' });
    expect(existsSync(join(home, '.claude'))).toBe(false);
    expect(existsSync(join(data, 'users', userId, 'resume-links.json'))).toBe(false);
  });
});
