import { z } from 'zod';
import { isUserId } from '../../auth/index.js';
import type { InstanceControlPort } from './ports.js';

/**
 * The instance control endpoint's contract, shared by both ends: `ControlClient` (the mover's side,
 * `control-client.ts`) sends these bodies and `server/cluster/control-server.ts` checks them with the
 * same schemas and calls the instance's `InstanceControlPort` method of the same name. An operation
 * is added here once; both ends then fail to compile until they handle it.
 */
export const CONTROL_PREFIX = '/api/cluster/control/';

/** The header that carries OPENPROGRAM_CLUSTER_SECRET to `/api/cluster/control/*`. */
export const CLUSTER_SECRET_HEADER = 'x-entity-memory-cluster-secret';

const userId = z.string().refine(isUserId, 'a user id is 16 hex digits');
const heads = z.record(z.string(), z.record(z.string(), z.string()));
const event = z.object({ id: z.string(), type: z.string(), data: z.unknown() });
const handoff = z.object({
  boot: z.string().min(1).max(64),
  seq: z.number().int().min(0),
  events: z.array(event).max(100_000),
  adopted: z.record(z.string(), z.number().int()).optional(),
});

/** One operation: its body's schema, and how the endpoint calls the port with the checked body. */
function operation<Body extends z.ZodType, Result>(body: Body, run: (port: InstanceControlPort, body: z.output<Body>) => Result) {
  return { body, run };
}

/** Each operation of the endpoint, named as the port's method it calls. */
export const CONTROL_OPERATIONS = {
  describe: operation(z.object({}), (port) => port.describe()),
  freeze: operation(z.object({ userId, moveId: z.string().regex(/^[0-9a-z]{8,40}$/) }), (port, body) => port.freeze(body.userId, body.moveId)),
  unfreeze: operation(z.object({ userId }), (port, body) => port.unfreeze(body.userId)),
  precheck: operation(z.object({ userId }), (port, body) => port.precheck(body.userId)),
  verify: operation(
    z.object({ userId, heads, sourceDataDir: z.string().min(1), fsckSkip: z.array(z.string().min(1)).optional() }),
    (port, { userId: id, fsckSkip, ...expected }) => port.verify(id, { ...expected, ...(fsckSkip ? { fsckSkip } : {}) }),
  ),
  adopt: operation(z.object({ userId, handoff }), (port, body) => port.adopt(body.userId, body.handoff)),
  release: operation(
    z.object({ userId, owner: z.object({ id: z.string().min(1).max(200), url: z.string().max(2000), epoch: z.number().int() }) }),
    (port, body) => port.release(body.userId, body.owner),
  ),
  discard: operation(z.object({ userId }), (port, body) => port.discard(body.userId)),
} satisfies { [Op in ControlOperation]: ControlOperationSpec<Op> };

/** Every method of the port is an operation of the endpoint. */
export type ControlOperation = keyof InstanceControlPort;

/** What the table must hold for each method: a schema, and a call whose result is the method's. */
interface ControlOperationSpec<Op extends ControlOperation> {
  body: z.ZodType;
  run: (port: InstanceControlPort, body: never) => ReturnType<InstanceControlPort[Op]>;
}

export type ControlBody<Op extends ControlOperation> = z.input<(typeof CONTROL_OPERATIONS)[Op]['body']>;
export type ControlResult<Op extends ControlOperation> = Awaited<ReturnType<InstanceControlPort[Op]>>;

export function isControlOperation(name: string): name is ControlOperation {
  return Object.hasOwn(CONTROL_OPERATIONS, name);
}

/**
 * A body as it arrived (JSON) checked against the operation's schema, then the port called with it:
 * `{ok: false, message}` names what is wrong with the body.
 */
export async function runControlOperation(port: InstanceControlPort, op: ControlOperation, json: unknown): Promise<{ ok: true; result: unknown } | { ok: false; message: string }> {
  const spec = CONTROL_OPERATIONS[op] as { body: z.ZodType; run: (port: InstanceControlPort, body: unknown) => unknown };
  const parsed = spec.body.safeParse(json);
  if (!parsed.success) return { ok: false, message: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ') };
  return { ok: true, result: await spec.run(port, parsed.data) };
}
