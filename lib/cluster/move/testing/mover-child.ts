/**
 * A mover that SIGKILLs itself at a chosen point (KILL=start:<step> as a step begins, or
 * KILL=after:<operation> right after an operation inside a step returned). The instances of this
 * test run in the same process, so their memory (frozen users, event ids) dies with it and only
 * what they put on disk survives, as after a SIGKILL of source, target and mover at once.
 */
import { MoveEngine } from '../engine.js';
import type { InstanceControlPort } from '../ports.js';
import { rsyncUser } from '../rsync.js';
import { twoInstances, USER } from './fixture.js';

const world = twoInstances(process.env.MOVE_ROOT!);
const kill = process.env.KILL ?? '';
const die = (point: string): void => {
  if (point === kill) process.kill(process.pid, 'SIGKILL');
};
const copies = { count: 0 };

function killing<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, name, receiver) {
      const value = Reflect.get(object, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
        die(`after:${String(name)}`);
        return result;
      };
    },
  });
}

const directory = killing(world.directory);
const engine = new MoveEngine({
  directory,
  journal: world.journal,
  control: async (id) => killing<InstanceControlPort>((id === 'a' ? world.a : world.b).control()),
  copy: async (...args) => {
    await rsyncUser(...args);
    die(`after:copy-${++copies.count}`);
  },
  onProgress: ({ step, phase }) => {
    if (phase === 'start') die(`start:${step}`);
  },
});
await engine.start(USER, 'b');
process.stdout.write('finished without being killed\n');
