import { BranchGraph } from '@/components/timeline/branch-graph';
import { GraphCompareWith } from '@/components/compare/graph-compare-with';
import { getServerCaller } from '@/trpc/server';

/** Streamed after the turns: laying out a big DAG must not hold back the page's first byte. */
export async function BranchGraphSection({ sessionId }: { sessionId: string }) {
  const layout = await (await getServerCaller()).timeline.graph({ sessionId });
  return (
    <div className="space-y-2">
      <p className="text-xs text-neutral-500 dark:text-neutral-400">
        {layout.messageCount} messages. Blue dots are your messages, rings the replies, the amber circle the current head. Pick a branch name to switch to it.
      </p>
      <BranchGraph sessionId={sessionId} layout={layout} />
      <GraphCompareWith sessionId={sessionId} layout={layout} />
    </div>
  );
}
