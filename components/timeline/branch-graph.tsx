'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useRef } from 'react';
import { toast } from 'sonner';
import { useTRPC } from '@/trpc/client';
import type { RouterOutputs } from '@/trpc/types';

type Layout = RouterOutputs['timeline']['graph'];
type GraphNode = Layout['nodes'][number];

const TIP_CHARS = 24;

function tipText(name: string): string {
  const chars = [...name];
  return chars.length > TIP_CHARS ? `${chars.slice(0, TIP_CHARS - 1).join('')}…` : name;
}

function pathOf(points: Array<{ x: number; y: number }>): string {
  return points.map((point, i) => `${i === 0 ? 'M' : 'L'}${point.x},${point.y}`).join(' ');
}

/** Where a node's edges meet it: the dot's centre (a segment's middle). */
function anchorOf(node: GraphNode): { x: number; y: number } {
  if (node.kind === 'segment') return { x: node.x, y: node.y - node.height / 2 };
  return { x: node.x - node.width / 2 + node.height / 2, y: node.y };
}

/** Room left of the graph (it runs left to right) for the common start of conversations that begin with different first messages. */
const START_ROOM = 40;

function Dot({ node }: { node: GraphNode }) {
  const r = node.height / 2;
  const cx = node.x - node.width / 2 + r;
  const fill = node.kind === 'user' ? 'fill-blue-600 dark:fill-blue-400' : 'fill-emerald-600 dark:fill-emerald-400';
  return (
    <>
      {node.isHead ? <circle cx={cx} cy={node.y} r={r + 1} className="fill-none stroke-amber-500" strokeWidth={3} /> : null}
      <circle cx={cx} cy={node.y} r={r - 3} className={fill} />
      {node.kind === 'user' ? null : <circle cx={cx} cy={node.y} r={r - 7} className="fill-white dark:fill-neutral-950" />}
    </>
  );
}

/**
 * The conversation's branches as the server laid them out: user messages filled blue,
 * replies ringed green, the head circled amber, long runs as "… N messages". A tip is a link
 * that makes its branch the current one and opens the session there.
 */
export function BranchGraph({ sessionId, layout }: { sessionId: string; layout: Layout }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const setHead = useMutation(trpc.branch.setHead.mutationOptions());
  const sessionHref = `/sessions/${encodeURIComponent(sessionId)}`;
  const scroller = useRef<HTMLDivElement>(null);
  const head = layout.nodes.find((node) => node.isHead);
  // An edited first message is a second root: one "Start" above them draws a single tree.
  const targets = new Set(layout.edges.map((edge) => edge.to));
  const roots = layout.nodes.filter((node) => !targets.has(node.id));
  const left = roots.length > 1 ? START_ROOM : 0;
  const start = left > 0 ? { x: 12, y: roots.reduce((sum, node) => sum + anchorOf(node).y, 0) / roots.length } : null;

  // A wide graph opens on the current head, wherever its lane is.
  useEffect(() => {
    const box = scroller.current;
    if (!box || !head) return;
    box.scrollTop = Math.max(0, head.y - box.clientHeight / 2);
    box.scrollLeft = Math.max(0, head.x + left - box.clientWidth / 2);
  }, [head, left]);

  const open = (headId: string) => {
    setHead.mutate(
      { sessionId, headId },
      {
        onSuccess: async () => {
          await queryClient.invalidateQueries();
          router.push(sessionHref);
        },
        onError: (error) => toast.error(`Cannot switch branches: ${error.message}`),
      },
    );
  };

  if (layout.nodes.length === 0) return <p className="text-sm text-neutral-600 dark:text-neutral-400">No messages yet.</p>;
  return (
    <div ref={scroller} className="max-h-[28rem] overflow-auto rounded-md border border-neutral-200 bg-neutral-50 dark:border-neutral-800 dark:bg-neutral-900">
      <svg role="img" aria-label="Branch graph" width={layout.width + left} height={layout.height} viewBox={`0 0 ${layout.width + left} ${layout.height}`} className="block">
        {start ? (
          <g>
            {/* One string: React's server renders a <title> with several children empty, and the hydration fails (#418). */}
            <title>{`Start of the conversation: its first message was edited, so it begins in ${roots.length} ways`}</title>
            <g className="stroke-neutral-400 dark:stroke-neutral-600" fill="none" strokeWidth={1.5}>
              {roots.map((root) => {
                const to = anchorOf(root);
                return <path key={root.id} d={pathOf([start, { x: start.x + 14, y: to.y }, { x: to.x + left, y: to.y }])} />;
              })}
            </g>
            <circle cx={start.x} cy={start.y} r={5} className="fill-neutral-500 dark:fill-neutral-400" />
            <text x={start.x - 6} y={start.y - 9} className="fill-neutral-600 text-[11px] dark:fill-neutral-300">
              Start
            </text>
          </g>
        ) : null}
        <g transform={`translate(${left} 0)`}>
        <g className="stroke-neutral-400 dark:stroke-neutral-600" fill="none" strokeWidth={1.5}>
          {layout.edges.map((edge) => (
            <path key={`${edge.from}>${edge.to}`} d={pathOf(edge.points)} />
          ))}
        </g>
        {layout.nodes.map((node) => {
          if (node.kind === 'segment') {
            return (
              <g key={node.id}>
                <title>{node.label}</title>
                <rect
                  x={node.x - node.width / 2}
                  y={node.y - node.height / 2}
                  width={node.width}
                  height={node.height}
                  rx={node.height / 2}
                  className="fill-white stroke-neutral-300 dark:fill-neutral-800 dark:stroke-neutral-700"
                />
                <text x={node.x} y={node.y + 4} textAnchor="middle" className="fill-neutral-600 text-[11px] dark:fill-neutral-300">
                  {node.label}
                </text>
              </g>
            );
          }
          const tip = node.tip;
          if (!tip) {
            return (
              <g key={node.id}>
                <title>{`${node.kind === 'user' ? 'User' : 'Assistant'}: ${node.label}`}</title>
                <Dot node={node} />
              </g>
            );
          }
          const label = `${tipText(tip.name)}${tip.current ? ' (current)' : ''}`;
          return (
            <a
              key={node.id}
              href={sessionHref}
              aria-label={tip.current ? `Branch ${tip.name} (current)` : `Switch to branch ${tip.name}`}
              onClick={(event) => {
                event.preventDefault();
                if (!setHead.isPending) open(tip.headId);
              }}
              className="cursor-pointer focus:outline-none [&:focus-visible>rect]:stroke-blue-600"
            >
              <title>{`${tip.name}: ${node.label}`}</title>
              <rect x={node.x - node.width / 2 - 2} y={node.y - node.height / 2 - 2} width={node.width + 4} height={node.height + 4} rx={6} className="fill-transparent stroke-transparent" strokeWidth={2} />
              <Dot node={node} />
              <text x={node.x - node.width / 2 + node.height + 4} y={node.y + 4} className={`text-[11px] ${tip.current ? 'fill-amber-700 font-semibold dark:fill-amber-300' : 'fill-blue-700 underline dark:fill-blue-300'}`}>
                {label}
              </text>
            </a>
          );
        })}
        </g>
      </svg>
    </div>
  );
}
