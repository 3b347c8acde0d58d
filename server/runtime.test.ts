import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DeliveredEvent } from './events/hub';

const dataDir = join(mkdtempSync(join(tmpdir(), 'em-runtime-')), 'data');
process.env.OPENPROGRAM_DATA_DIR = dataDir;
const runtime = await import('./runtime');

afterAll(async () => {
  for (const id of ['0123456789abcdef', 'fedcba9876543210']) await (await runtime.getUserStore(id)).close();
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
});

describe('server runtime', () => {
  it('creates the data directory 0700 with auth/, users/ and workspaces/', () => {
    expect(runtime.getDataDir()).toBe(dataDir);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(runtime.getAuthStore().authDir).toBe(join(dataDir, 'auth'));
    expect(statSync(join(dataDir, 'users')).isDirectory()).toBe(true);
  });

  it('opens one store per user, once, and forwards its events to that user only', async () => {
    const a = '0123456789abcdef';
    const b = 'fedcba9876543210';
    const first = runtime.getUserStore(a);
    expect(runtime.getUserStore(a)).toBe(first);
    const storeA = await first;
    const storeB = await runtime.getUserStore(b);
    expect(storeB).not.toBe(storeA);
    expect(statSync(join(dataDir, 'workspaces', a)).mode & 0o777).toBe(0o700);

    const gotA: DeliveredEvent[] = [];
    const gotB: DeliveredEvent[] = [];
    const hub = runtime.getEventHub();
    hub.subscribe(a, (e) => gotA.push(e));
    hub.subscribe(b, (e) => gotB.push(e));
    const { row } = await storeA.createSession({ title: 'hello' });
    expect(gotA.map((e) => [e.type, (e.data as { id: string }).id])).toEqual([['session_created', row.id]]);
    expect(gotA[0]!.id).toBe(`${hub.boot}-1`);
    expect(gotB).toEqual([]);
    expect(() => runtime.flushAllSync()).not.toThrow();
  });

  it('closes a user\'s open streams the moment their sign-ins end (disabled)', async () => {
    const auth = runtime.getAuthStore();
    await auth.users.create({ email: 'root@runtime.test', password: 'password-0', admin: true });
    const user = await auth.users.create({ email: 'a@runtime.test', password: 'password-1' });
    const version = user.sessionVersion;
    let closed = 0;
    runtime.getEventHub().subscribe(user.id, () => {}, null, () => {
      if (!auth.sessionUser(user.id, version)) closed++;
    });
    await auth.users.setDisabled(user.id, true);
    expect(closed).toBe(1);
  });

  it('refuses a user id that is not one of ours (it would name a directory)', async () => {
    await expect(runtime.getUserStore('../etc')).rejects.toThrow(/invalid user id/);
  });
});
