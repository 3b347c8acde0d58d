import { CLUSTER_SECRET_HEADER, CONTROL_PREFIX, type ControlBody, type ControlOperation, type ControlResult } from './control-contract.js';
import { MoveError, type EventHandoff, type InstanceControlPort, type NewOwner, type VerifyExpectation } from './ports.js';

/**
 * The client of an instance's control endpoint (`server/cluster/control-server.ts`), as the mover
 * (CLI or Admin page) calls it over HTTP: each method sends the body `control-contract.ts` defines
 * for it, and the endpoint checks it with the same schema.
 */
export class ControlClient implements InstanceControlPort {
  constructor(
    readonly url: string,
    private readonly secret: string,
    private readonly timeoutMs = 10 * 60_000,
  ) {}

  private async call<Op extends ControlOperation>(op: Op, body: ControlBody<Op>): Promise<ControlResult<Op>> {
    let response: Response;
    try {
      response = await fetch(new URL(`${CONTROL_PREFIX}${op}`, this.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', [CLUSTER_SECRET_HEADER]: this.secret },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new MoveError(`${this.url} did not answer ${op}: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`);
    }
    const text = await response.text();
    let parsed: { result?: ControlResult<Op>; error?: string; code?: MoveError['code'] };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new MoveError(`${this.url} answered ${op} with ${response.status}: ${text.slice(0, 200)}`);
    }
    if (!response.ok) throw new MoveError(`${this.url} refused ${op}: ${parsed.error ?? response.status}`, parsed.code ?? 'failed');
    return parsed.result as ControlResult<Op>;
  }

  describe() {
    return this.call('describe', {});
  }
  freeze(userId: string, moveId: string) {
    return this.call('freeze', { userId, moveId });
  }
  unfreeze(userId: string) {
    return this.call('unfreeze', { userId });
  }
  precheck(userId: string) {
    return this.call('precheck', { userId });
  }
  verify(userId: string, expected: VerifyExpectation) {
    return this.call('verify', { userId, ...expected });
  }
  adopt(userId: string, handoff: EventHandoff) {
    return this.call('adopt', { userId, handoff });
  }
  release(userId: string, owner: NewOwner) {
    return this.call('release', { userId, owner });
  }
  discard(userId: string) {
    return this.call('discard', { userId });
  }
}
