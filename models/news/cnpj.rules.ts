/** Brazilian company registration numbers (CNPJ): check digits and format. Pure. */

const W1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const W2 = [6, ...W1];

function checkDigit(digits: number[], weights: number[]): number {
  const r = digits.reduce((s, d, i) => s + d * weights[i]!, 0) % 11;
  return r < 2 ? 0 : 11 - r;
}

/** A formatted CNPJ (00.000.000/0000-00) from its first 12 digits. */
export function cnpjFromBase(base12: string): string {
  if (!/^\d{12}$/.test(base12)) throw new Error('a CNPJ base has 12 digits');
  const d = [...base12].map(Number);
  const d1 = checkDigit(d, W1);
  const d2 = checkDigit([...d, d1], W2);
  const s = `${base12}${d1}${d2}`;
  return `${s.slice(0, 2)}.${s.slice(2, 5)}.${s.slice(5, 8)}/${s.slice(8, 12)}-${s.slice(12)}`;
}

/** True for a CNPJ (formatted or digits only) whose check digits are right and not all digits equal. */
export function isValidCnpj(value: string): boolean {
  const s = value.replace(/[./-]/g, '');
  if (!/^\d{14}$/.test(s) || /^(\d)\1{13}$/.test(s)) return false;
  return cnpjFromBase(s.slice(0, 12)).replace(/[./-]/g, '') === s;
}

/** A CNPJ as written: formatted (00.000.000/0000-00) or its 14 digits alone. */
const CNPJ_SHAPE = /^(\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}|\d{14})$/;

/** A CNPJ as the catalogue stores it (00.000.000/0000-00), or null when it is not one (shape or check digits). */
export function formattedCnpj(value: string): string | null {
  const v = value.trim();
  if (!CNPJ_SHAPE.test(v) || !isValidCnpj(v)) return null;
  return cnpjFromBase(v.replace(/\D/g, '').slice(0, 12));
}
