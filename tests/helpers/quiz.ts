/** Quiz test material: edition texts, and what a model (the OpenAI double) answers about them. */
import { OPTIONS_PER_QUESTION, QUIZ_RULES } from '../../models/quiz/quiz.rules';

/** An edition's text: ten facts, one sentence each, that questions can quote. */
export function editionText(label: string): string {
  const facts = [
    `O Copom manteve a Selic em 10,5% ao ano na reunião de ${label}.`,
    `A Petrobras anunciou dividendos extraordinários de R$ 20 bilhões em ${label}.`,
    `A Vale voltou a exportar minério pelo porto de Tubarão em ${label}.`,
    `O Ibovespa fechou em alta de 1,2% puxado pelos bancos em ${label}.`,
    `O dólar recuou para R$ 5,10 depois do dado de inflação americana em ${label}.`,
    `A Embraer entregou 15 jatos comerciais no trimestre encerrado em ${label}.`,
    `O IBGE informou que o desemprego caiu para 7,4% em ${label}.`,
    `A Ambev lançou uma cerveja sem álcool no Nordeste em ${label}.`,
    `O Banco do Brasil ampliou o crédito agrícola para a safra em ${label}.`,
    `A Magazine Luiza fechou 20 lojas físicas no Sul em ${label}.`,
  ];
  return `Bom dia, leitor! Estas são as notícias da edição.\n\n${facts.join('\n\n')}`;
}

/** A quiz as a model held to the schema would write it: each question quotes a sentence of `text`. */
export function modelQuiz(text: string, questions: number = QUIZ_RULES.totalQuestions): string {
  const sentences = text.split('\n\n').slice(1);
  return JSON.stringify({
    questions: Array.from({ length: questions }, (_, i) => ({
      question: `Segundo a edição, qual destas afirmações está correta (${i + 1})?`,
      options: Array.from({ length: OPTIONS_PER_QUESTION }, (_, o) => ({ text: o === 0 ? `Fato ${i + 1}: verdadeiro` : `Fato ${i + 1}: falso ${o}`, correct: o === 0 })),
      evidence: sentences[i % sentences.length],
    })),
  });
}

/** Ten manual questions whose correct option is `correct[i]` (for POST /quiz/admin/create). */
export function manualQuestions(correct: number[] = [0, 1, 2, 3, 0, 1, 2, 3, 0, 1]) {
  return correct.map((c, i) => ({ text: `Pergunta número ${i + 1} da edição?`, options: ['Opção A', 'Opção B', 'Opção C', 'Opção D'], correct: c }));
}
