import { matchResume, proxySessionIdOf, readResumeLinks } from '@/lib/resume/index';
import type { ParsedRequest } from '@/lib/proxy/types';
import { getDataDir, getUserStore } from '@/server/runtime';
import type { RecordedResponse } from './response-index';

/** What of a planned exchange a resume changes: where it is recorded and from which message. */
export interface PlacedExchange {
  sessionId: string;
  parsed: ParsedRequest | null;
  fingerprints: (string | null)[];
  after: RecordedResponse | null;
}

/**
 * DESIGN §14 "Resume in the agent": an exchange of a run resumed from a transcript we wrote goes
 * to the session it was written from, as a branch from the turn it was written at. Its request
 * begins with that history (the agent sends back what it was given); the steps up to the last
 * message of it are already recorded there, so only what follows is recorded, after that message.
 * An exchange that no link names, or whose own session is recorded already, is left as planned.
 */
export async function followResume<P extends PlacedExchange>(userId: string, plan: P): Promise<P> {
  if (!plan.parsed || plan.after) return plan;
  const links = readResumeLinks(getDataDir(), userId);
  if (links.length === 0) return plan;
  const store = await getUserStore(userId);
  const named = links.some((link) => proxySessionIdOf(link) === plan.sessionId);
  if (!named && store.hasSession(plan.sessionId)) return plan;
  const match = matchResume(links, plan.sessionId, plan.fingerprints);
  if (!match || !store.hasSession(match.link.sessionId)) return plan;
  const from = match.stepIndex + 1;
  return {
    ...plan,
    sessionId: match.link.sessionId,
    parsed: { ...plan.parsed, steps: plan.parsed.steps.slice(from) },
    fingerprints: plan.fingerprints.slice(from),
    after: { sessionId: match.link.sessionId, nodeId: match.nodeId, fingerprint: match.fingerprint },
  };
}
