import { InstanceControl, type EventHandoff, type InstanceRuntimePort } from '@/lib/cluster/move/index';
import { closeUserStore, getDataDir, getEventHub, getProjectRoots, isUserStoreOpen, settleUserStore } from '@/server/runtime';
import type { EventHandoff as HubHandoff } from '@/server/events/hub';
import { getUserGate } from './user-gate';

/** This instance's id in the cluster (OPENPROGRAM_INSTANCE_ID; the core branch's name too). */
export function instanceId(): string {
  return process.env.OPENPROGRAM_INSTANCE_ID || 'local';
}

/** The running server as one side of a move: its gate, stores and event hub. */
async function runtimePort(): Promise<InstanceRuntimePort> {
  const roots = await getProjectRoots();
  const hub = getEventHub();
  return {
    id: instanceId(),
    dataDir: getDataDir(),
    // Across machines rsync reaches the data directory as host:path (OPENPROGRAM_RSYNC_LOCATION).
    rsyncLocation: process.env.OPENPROGRAM_RSYNC_LOCATION || getDataDir(),
    gate: getUserGate(),
    settleUser: settleUserStore,
    closeStreams(userId): EventHandoff {
      hub.disconnect(userId, 'moving');
      return hub.handoff(userId);
    },
    adoptEvents: (userId, handoff) => hub.adopt(userId, handoff as HubHandoff),
    forgetEvents: (userId) => hub.forget(userId),
    closeUser: closeUserStore,
    servesUser: isUserStoreOpen,
    allowedRoots: (userId) => roots.rootsOf(userId),
  };
}

export async function instanceControl(): Promise<InstanceControl> {
  return new InstanceControl(await runtimePort());
}
