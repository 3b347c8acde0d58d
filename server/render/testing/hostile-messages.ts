/**
 * The messages an outside probe used to stall or crash the server through rendering (issue 23),
 * for the render tests, the e2e specs and the bench. `variant` makes each one a new text, so a
 * cache hit cannot stand in for a render.
 */
export function hostileMessages(variant = ''): Record<'cppSpaces' | 'brackets' | 'nestedList' | 'deepQuotes', string> {
  return {
    /** ~10 KB: a C++ block of one line of 10,000 spaces (13–22 s of highlighting on main). */
    cppSpaces: `\`\`\`cpp\n${' '.repeat(10_000)}\n\`\`\`\n${variant}`,
    /** 40 KB of brackets: label matching in the parser is quadratic (15 s). */
    brackets: `${'['.repeat(20_000)}${']'.repeat(20_000)}${variant}`,
    /** ~90 KB of list nested 300 levels deep, just inside the Markdown size limit. */
    nestedList: `${Array.from({ length: 300 }, (_, level) => `${'  '.repeat(level)}- item ${level}`).join('\n')}\n${variant}`,
    /** 3 KB: 3,000 nested quotes overflowed the stack (a 500 for the page, on every visit). */
    deepQuotes: `${'>'.repeat(3_000)} the end ${variant}`,
  };
}
