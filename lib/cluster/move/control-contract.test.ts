import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from './control-client.js';
import { CLUSTER_SECRET_HEADER, CONTROL_OPERATIONS, CONTROL_PREFIX, isControlOperation, runControlOperation } from './control-contract.js';
import { MoveError, type InstanceControlPort } from './ports.js';

const USER = '0123456789abcdef';
const SECRET = 'a-cluster-secret-of-some-length';

/** A port that records each call and answers a value naming it: what the endpoint would call. */
function recordingPort(calls: Array<[string, unknown[]]>): InstanceControlPort {
  const answer = (name: string) =>
    (...args: unknown[]) => {
      calls.push([name, args]);
      if (name === 'discard') return Promise.reject(new MoveError('the user is served here', 'conflict'));
      return Promise.resolve(name === 'unfreeze' || name === 'adopt' || name === 'release' ? undefined : { answeredBy: name });
    };
  return Object.fromEntries(Object.keys(CONTROL_OPERATIONS).map((name) => [name, answer(name)])) as unknown as InstanceControlPort;
}

describe('the control contract: one table for the client and the server', () => {
  const calls: Array<[string, unknown[]]> = [];
  let server: Server;
  let client: ControlClient;

  beforeAll(async () => {
    const port = recordingPort(calls);
    // The endpoint's essentials as control-server.ts has them: the secret, the operation, the checked body.
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const op = (req.url ?? '').slice(CONTROL_PREFIX.length);
        const send = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
        if (req.headers[CLUSTER_SECRET_HEADER] !== SECRET || !isControlOperation(op)) return send(404, { error: 'no' });
        runControlOperation(port, op, JSON.parse(body)).then(
          (outcome) => (outcome.ok ? send(200, { result: outcome.result ?? null }) : send(400, { error: outcome.message, code: 'bad_input' })),
          (error: MoveError) => send(409, { error: error.message, code: error.code }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new ControlClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, SECRET);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('carries every operation of the port to the same method with the same arguments', async () => {
    const owner = { id: 'b', url: 'http://b.test', epoch: 3 };
    const handoff = { boot: 'boot-1', seq: 7, events: [{ id: 'boot-1:7', type: 'turn_committed', data: { sessionId: 's' } }] };
    const expected = { heads: { 'users/x/s.git': { 'refs/heads/main': 'a'.repeat(40) } }, sourceDataDir: '/data/a', fsckSkip: ['users/x/t.git'] };
    expect(await client.describe()).toEqual({ answeredBy: 'describe' });
    expect(await client.freeze(USER, 'move0001')).toEqual({ answeredBy: 'freeze' });
    expect(await client.unfreeze(USER)).toBeNull();
    expect(await client.precheck(USER)).toEqual({ answeredBy: 'precheck' });
    expect(await client.verify(USER, expected)).toEqual({ answeredBy: 'verify' });
    expect(await client.adopt(USER, handoff)).toBeNull();
    expect(await client.release(USER, owner)).toBeNull();
    await expect(client.discard(USER)).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('the user is served here') });
    expect(calls).toEqual([
      ['describe', []],
      ['freeze', [USER, 'move0001']],
      ['unfreeze', [USER]],
      ['precheck', [USER]],
      ['verify', [USER, expected]],
      ['adopt', [USER, handoff]],
      ['release', [USER, owner]],
      ['discard', [USER]],
    ]);
    // Every method of the port is in the table (the type says so; this says the client sent each).
    expect(new Set(calls.map(([name]) => name))).toEqual(new Set(Object.keys(CONTROL_OPERATIONS)));
  });

  it('refuses a body its schema does not take, naming the field, and calls nothing', async () => {
    const before = calls.length;
    const outcome = await runControlOperation(recordingPort(calls), 'freeze', { userId: 'not-a-user', moveId: 'm' });
    expect(outcome).toEqual({ ok: false, message: 'userId: a user id is 16 hex digits; moveId: Invalid string: must match pattern /^[0-9a-z]{8,40}$/' });
    expect(calls.length).toBe(before);
    expect(isControlOperation('toString')).toBe(false);
  });
});
