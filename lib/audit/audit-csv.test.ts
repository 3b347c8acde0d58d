import { describe, expect, it } from 'vitest';
import { auditCsvCell, auditCsvRow } from './audit-csv.js';

describe('audit CSV', () => {
  it('prefixes a cell a spreadsheet would run as a formula', () => {
    for (const text of ['=HYPERLINK("http://x")', '+1+2', '-2+3', '@SUM(A1)', '\tx']) expect(auditCsvCell(text).replace(/^"/, '')).toMatch(/^'/);
    expect(auditCsvCell('plain@example.test')).toBe('plain@example.test');
  });

  it('quotes commas, quotes and line ends', () => {
    expect(auditCsvRow({ at: 0, actor: 'u', ip: null, action: 'export', target: 'a,"b"\nc', result: 'success' }, () => 'a@b.test')).toBe(
      '1970-01-01T00:00:00.000Z,a@b.test,,export,"a,""b""\nc",success\r\n',
    );
  });
});
