/** What a chart shows, as rows of text: the accessible table under it and its CSV are both made from this. */
export interface UsageTableData {
  columns: string[];
  rows: string[][];
}

/** A cell a spreadsheet would read as a formula (OWASP's CSV injection list); a number is not one. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER = /^[+-]?\d[\d.,]*%?$/;

/**
 * RFC 4180: a cell with a comma, quote or line end is quoted, its quotes doubled. A cell that
 * starts like a formula (a session title "=HYPERLINK(…)", in the admin's every-user table too)
 * gets a leading apostrophe, so opening the download in a spreadsheet runs nothing.
 */
export function csvCell(text: string): string {
  const safe = FORMULA_START.test(text) && !NUMBER.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function tableCsv(table: UsageTableData): string {
  return `${[table.columns, ...table.rows].map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
