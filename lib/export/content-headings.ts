/**
 * A message's Markdown made unable to forge the export's own structure: the export marks each
 * turn with a level-2 heading (`## User · …`), so inside a message every heading is pushed below
 * that level. ATX headings gain two levels (`#` → `###`, at most `######`), a setext underline
 * (`===`/`---` under a paragraph line, an h1/h2) is parted from its line by a blank one (the line
 * stays a paragraph, `---` becomes a rule), and a line opening a raw `<h1>`/`<h2>` is escaped.
 * Code fences are left exactly as written; one left open is closed at the message's end.
 */
export function belowTurnHeadings(text: string): string {
  const lines = text.split(/\r\n|\r|\n/);
  const out: string[] = [];
  let fence: { char: string; length: number } | null = null;
  let previousIsParagraph = false;
  for (const line of lines) {
    const fenceMark = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      out.push(line);
      if (fenceMark && fenceMark[1]![0] === fence.char && fenceMark[1]!.length >= fence.length && /^ {0,3}[`~]+[ \t]*$/.test(line)) fence = null;
      previousIsParagraph = false;
      continue;
    }
    if (fenceMark) {
      fence = { char: fenceMark[1]![0]!, length: fenceMark[1]!.length };
      out.push(line);
      previousIsParagraph = false;
      continue;
    }
    const atx = /^( {0,3})(#{1,6})(?=[ \t]|$)/.exec(line);
    if (atx) {
      out.push(`${atx[1]}${'#'.repeat(Math.min(6, atx[2]!.length + 2))}${line.slice(atx[0].length)}`);
      previousIsParagraph = false;
      continue;
    }
    if (previousIsParagraph && /^ {0,3}(=+|-+)[ \t]*$/.test(line)) {
      out.push('', line);
      previousIsParagraph = false;
      continue;
    }
    out.push(/^ {0,3}<h[12][\s>/]/i.test(line) ? line.replace(/</, '\\<') : line);
    // A line of text that an underline below would turn into a heading (not blank, not code by indent).
    previousIsParagraph = line.trim() !== '' && !/^( {4}|\t)/.test(line);
  }
  // A fence left open would run on over the turns after this message and hide their headings.
  if (fence) out.push(fence.char.repeat(fence.length));
  return out.join('\n');
}
