import { fold, stem, terms, words } from '../../models/news/text.rules';

describe('Portuguese search text', () => {
  it('folds case and accents', () => {
    expect(fold('Ações da PETROBRÁS sobem; Itaú e Vale caem')).toBe('acoes da petrobras sobem; itau e vale caem');
    expect(fold('Çê')).toBe('ce');
  });

  it.each([
    ['acoes', 'acao'],
    ['acao', 'acao'],
    ['jornais', 'jornal'],
    ['papeis', 'papel'],
    ['bens', 'bem'],
    ['valores', 'valor'],
    ['empresas', 'empresa'],
    ['bancos', 'banco'],
    ['vezes', 'vez'],
    ['petrobras', 'petrobra'],
    ['ipo', 'ipo'],
    ['2026', '2026'],
    ['classes', 'classe'],
  ])('stems %s to %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it('gives a singular and its plural, with or without accents, the same terms', () => {
    expect(terms('Ação')).toEqual(terms('acoes'));
    expect(terms('Petrobrás')).toEqual(terms('petrobras'));
    expect(terms('Banco Central')).toEqual(terms('bancos centrais'));
  });

  it('drops stopwords and one-letter words, keeps order, and repeats only in words()', () => {
    expect(words('O lucro do banco e o lucro da empresa')).toEqual(['lucro', 'banco', 'lucro', 'empresa']);
    expect(terms('O lucro do banco e o lucro da empresa')).toEqual(['lucro', 'banco', 'empresa']);
  });
});
