/**
 * How deep a message's JSON fields (content, input, metadata) may nest. Real tool output stays
 * far below; JSON.stringify recurses and throws a RangeError a few thousand levels down, after a
 * node file would already exist.
 */
export const MAX_JSON_DEPTH = 64;

/** Does `value` nest arrays or objects more than `max` levels? Iterative, so it never overflows itself. */
export function exceedsJsonDepth(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
