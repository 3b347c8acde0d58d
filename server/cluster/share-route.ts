import type http from 'node:http';
import type { ClusterNode } from '@/lib/cluster/node';
import { misdirectedAnswer } from './misdirected';

// A share link's page (and its server actions, which post to the same path) and its attachments.
const SHARE_PATH = /^\/(?:s|api\/share)\/([^/?#]+)/;

/** The link id of a request for a shared conversation, or null for any other request. */
export function shareIdOfPath(url: string): string | null {
  const raw = SHARE_PATH.exec(url)?.[1];
  if (raw === undefined) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/**
 * Cluster mode, a shared conversation: served by the instance that owns the link's owner (HAProxy
 * routes `/s/<id>` by its links map), whoever the visitor is, so the visitor's own owner does
 * not matter here; the visitor's sign-in is read later only for the sharing mode. On any other
 * instance: 421 naming the link owner's instance. An unknown id passes on: the page answers 404.
 */
export async function admitShareRequest(shareId: string, res: http.ServerResponse, node: ClusterNode): Promise<boolean> {
  const ownerId = await node.shares.ownerOf(shareId);
  if (ownerId === null) return true;
  let verdict = node.ownership.check(ownerId);
  if (verdict.kind === 'unknown') {
    await node.ownership.refresh(ownerId);
    verdict = node.ownership.check(ownerId);
  }
  if (verdict.kind !== 'elsewhere') return true;
  // The one 421 (./misdirected.ts), naming the instance of the link's owner.
  const misdirected = misdirectedAnswer({ instance: verdict.owner.shard, url: verdict.url, epoch: verdict.owner.epoch });
  res.writeHead(misdirected.status, misdirected.headers);
  res.end(JSON.stringify(misdirected.body));
  return false;
}
