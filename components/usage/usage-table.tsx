'use client';

/** What a chart shows, as rows of text: the accessible table under it and its CSV are both made from this. */
export interface UsageTableData {
  columns: string[];
  rows: string[][];
}

/** RFC 4180: a cell with a comma, quote or line end is quoted, its quotes doubled. */
export function tableCsv(table: UsageTableData): string {
  const cell = (text: string) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  return `${[table.columns, ...table.rows].map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}

/** The chart's table, and a CSV download of exactly its cells. */
export function UsageTable({ caption, table, fileName }: { caption: string; table: UsageTableData; fileName: string }) {
  const href = `data:text/csv;charset=utf-8,${encodeURIComponent(tableCsv(table))}`;
  return (
    <div className="space-y-2">
      <div className="overflow-x-auto rounded-md border border-neutral-200 dark:border-neutral-800">
        <table className="w-full min-w-max text-left text-sm">
          <caption className="sr-only">{caption}</caption>
          <thead className="bg-neutral-50 text-xs uppercase text-neutral-600 dark:bg-neutral-900 dark:text-neutral-400">
            <tr>
              {table.columns.map((column) => (
                <th key={column} scope="col" className="px-3 py-2 font-medium">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
            {table.rows.length === 0 ? (
              <tr>
                <td colSpan={table.columns.length} className="px-3 py-2 text-neutral-500">
                  Nothing recorded in this range.
                </td>
              </tr>
            ) : (
              table.rows.map((row, index) => (
                <tr key={index}>
                  {row.map((cell, column) => (
                    <td key={column} className="whitespace-nowrap px-3 py-1.5 tabular-nums">
                      {cell}
                    </td>
                  ))}
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      <a href={href} download={fileName} className="inline-block text-sm text-blue-700 underline dark:text-blue-400">
        Download CSV: {caption}
      </a>
    </div>
  );
}
