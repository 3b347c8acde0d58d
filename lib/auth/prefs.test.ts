import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UserStore } from './users.js';

describe('user prefs', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('redaction is on by default, switchable, and kept in users.json across a reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'em-prefs-'));
    dirs.push(dir);
    const users = new UserStore(dir);
    const user = await users.create({ email: 'a@example.org', password: 'password-1' });
    expect(users.prefsOf(user.id)).toEqual({ redactSecrets: true, titleAgentSessions: false });
    expect(await users.setPrefs(user.id, { redactSecrets: false })).toEqual({ redactSecrets: false, titleAgentSessions: false });
    expect(new UserStore(dir).prefsOf(user.id)).toEqual({ redactSecrets: false, titleAgentSessions: false });
    expect(readFileSync(join(dir, 'users.json'), 'utf8')).toContain('"redactSecrets": false');
  });

  it('refuses a value that is not a boolean and changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'em-prefs-'));
    dirs.push(dir);
    const users = new UserStore(dir);
    const user = await users.create({ email: 'a@example.org', password: 'password-1' });
    await expect(users.setPrefs(user.id, { redactSecrets: 'no' as unknown as boolean })).rejects.toThrow(/true or false/);
    expect(users.prefsOf(user.id).redactSecrets).toBe(true);
    await expect(users.setPrefs(user.id, { titleAgentSessions: 1 as unknown as boolean })).rejects.toThrow(/titleAgentSessions must be true or false/);
    expect(users.prefsOf(user.id).titleAgentSessions).toBe(false);
  });

  it('agent sessions are not titled by the model unless turned on, and the choice is kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'em-prefs-'));
    dirs.push(dir);
    const users = new UserStore(dir);
    const user = await users.create({ email: 'a@example.org', password: 'password-1' });
    expect(users.prefsOf(user.id).titleAgentSessions).toBe(false);
    expect(await users.setPrefs(user.id, { titleAgentSessions: true })).toEqual({ redactSecrets: true, titleAgentSessions: true });
    expect(new UserStore(dir).prefsOf(user.id).titleAgentSessions).toBe(true);
  });
});
