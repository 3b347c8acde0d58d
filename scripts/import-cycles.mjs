// Circles in an import graph, for scripts/check-layers.mjs.

/**
 * Every circle of value imports among the non-test sources, one per strongly connected component
 * (Tarjan), as the files of one shortest loop through its first file: a circle means each side loads
 * the other at start-up, so the two are one layer in fact, whatever the rules say.
 */
export function valueCycles(edges) {
  const next = new Map();
  for (const [from, to] of edges) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from).add(to);
  }
  const order = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  let counter = 0;
  const connect = (start) => {
    // Iterative Tarjan: the import graph is deep enough to overflow a recursive one.
    const work = [[start, [...(next.get(start) ?? [])], 0]];
    order.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, targets] = frame;
      if (frame[2] < targets.length) {
        const target = targets[frame[2]++];
        if (!order.has(target)) {
          order.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push([target, [...(next.get(target) ?? [])], 0]);
        } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), order.get(target)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === order.get(node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1) components.push(component);
      }
    }
  };
  for (const node of [...next.keys()].sort()) if (!order.has(node)) connect(node);
  return components.map((component) => shortestLoop(next, new Set(component), [...component].sort()[0]));
}

function shortestLoop(next, members, start) {
  const cameFrom = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const target of next.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const loop = [];
        for (let at = node; at !== null; at = cameFrom.get(at)) loop.unshift(at);
        return loop;
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start];
}
