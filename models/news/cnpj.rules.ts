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
