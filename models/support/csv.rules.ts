/**
 * CSV of a tabular report (RFC 4180: comma-separated, CRLF line ends, fields with a comma, quote or
 * line break quoted, quotes doubled). A text cell that a spreadsheet would run as a formula
 * (starting with =, +, -, @, tab or CR) gets a leading apostrophe: exports are opened in Excel.
 */
export interface CsvColumn<T> {
  header: string;
  value: (row: T) => string | number | boolean | null;
}

function cell(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function toCsv<T>(columns: readonly CsvColumn<T>[], rows: readonly T[]): string {
  return [columns.map((c) => cell(c.header)), ...rows.map((r) => columns.map((c) => cell(c.value(r))))].map((line) => line.join(',')).join('\r\n') + '\r\n';
}
