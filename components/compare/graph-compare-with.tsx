import type { RouterOutputs } from '@/trpc/types';
import { CompareWith } from './compare-with';

type Layout = RouterOutputs['timeline']['graph'];

/** "Compare with…" under the branch graph: the current head against another branch tip, by its name. */
export function GraphCompareWith({ sessionId, layout }: { sessionId: string; layout: Layout }) {
  const head = layout.nodes.find((node) => node.isHead);
  if (!head) return null;
  const choices = layout.nodes.flatMap((node) => (node.tip && node.tip.headId !== head.id ? [{ id: node.tip.headId, label: node.tip.name }] : []));
  return (
    <div className="flex items-center gap-2 text-xs text-neutral-600 dark:text-neutral-400">
      <span>The current branch:</span>
      <CompareWith sessionId={sessionId} from={head.id} choices={choices} />
    </div>
  );
}
