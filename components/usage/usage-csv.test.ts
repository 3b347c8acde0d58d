import { describe, expect, it } from 'vitest';
import { csvCell, tableCsv } from './usage-csv';

describe('the usage tables as CSV', () => {
  it('quotes as RFC 4180 and keeps numbers as they are', () => {
    expect(csvCell('a, "b"')).toBe('"a, ""b"""');
    expect(csvCell('-12.5')).toBe('-12.5');
    expect(csvCell('+3%')).toBe('+3%');
    expect(tableCsv({ columns: ['Session', 'Cost'], rows: [['Parser', '$0.10']] })).toBe('Session,Cost\r\nParser,$0.10\r\n');
  });

  it('never hands a spreadsheet a formula from a title', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    for (const start of ['+', '-', '@', '\t', '\r']) expect(csvCell(`${start}cmd|' /C calc'!A0`).startsWith(`'`) || csvCell(`${start}cmd|' /C calc'!A0`).startsWith(`"'`)).toBe(true);
  });
});
