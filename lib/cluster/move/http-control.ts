import { MoveError, type EventHandoff, type FreezeResult, type InstanceControlPort, type NewOwner, type PrecheckReport, type VerifyExpectation, type VerifyReport } from './ports.js';

/** The header that carries OPENPROGRAM_CLUSTER_SECRET to `/api/cluster/control/*`. */
export const CLUSTER_SECRET_HEADER = 'x-entity-memory-cluster-secret';

/** An instance's control endpoint over HTTP, as the mover (CLI or Admin page) calls it. */
export class HttpInstanceControl implements InstanceControlPort {
  constructor(
    readonly url: string,
    private readonly secret: string,
    private readonly timeoutMs = 10 * 60_000,
  ) {}

  private async call<T>(op: string, body: Record<string, unknown>): Promise<T> {
    let response: Response;
    try {
      response = await fetch(new URL(`/api/cluster/control/${op}`, this.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', [CLUSTER_SECRET_HEADER]: this.secret },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new MoveError(`${this.url} did not answer ${op}: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`);
    }
    const text = await response.text();
    let parsed: { result?: T; error?: string; code?: MoveError['code'] };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new MoveError(`${this.url} answered ${op} with ${response.status}: ${text.slice(0, 200)}`);
    }
    if (!response.ok) throw new MoveError(`${this.url} refused ${op}: ${parsed.error ?? response.status}`, parsed.code ?? 'failed');
    return parsed.result as T;
  }

  describe(): Promise<{ id: string; dataDir: string }> {
    return this.call('describe', {});
  }
  freeze(userId: string, moveId: string): Promise<FreezeResult> {
    return this.call('freeze', { userId, moveId });
  }
  unfreeze(userId: string): Promise<void> {
    return this.call('unfreeze', { userId });
  }
  precheck(userId: string): Promise<PrecheckReport> {
    return this.call('precheck', { userId });
  }
  verify(userId: string, expected: VerifyExpectation): Promise<VerifyReport> {
    return this.call('verify', { userId, ...expected });
  }
  adopt(userId: string, handoff: EventHandoff): Promise<void> {
    return this.call('adopt', { userId, handoff });
  }
  release(userId: string, owner: NewOwner): Promise<void> {
    return this.call('release', { userId, owner });
  }
  discard(userId: string): Promise<void> {
    return this.call('discard', { userId });
  }
}
