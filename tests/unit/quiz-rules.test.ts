/** Quiz rules (issue 12): what the model's answer must be, and how answers are scored. */
import { QUIZ_RULES, readModelQuiz, score, Answers, ManualQuestion } from '../../models/quiz/quiz.rules';
import { editionText, modelQuiz } from '../helpers/quiz';

const text = editionText('21/11/2031');
const problemsOf = (content: string) => {
  const read = readModelQuiz(content, text);
  return 'problems' in read ? read.problems.join(' | ') : '';
};

describe('readModelQuiz', () => {
  it('accepts ten grounded questions with one correct option each, shuffling the options', () => {
    let calls = 0;
    const read = readModelQuiz(modelQuiz(text), text, () => [0.99, 0.1, 0.5, 0.3][calls++ % 4]!);
    if ('problems' in read) throw new Error(read.problems.join('; '));
    expect(read.questions).toHaveLength(10);
    for (const [i, q] of read.questions.entries()) {
      expect(q.options).toHaveLength(4);
      // Wherever the shuffle put it, `correct` points at the option the model marked.
      expect(q.options[q.correct]).toBe(`Fato ${i + 1}: verdadeiro`);
    }
    expect(new Set(read.questions.map((q) => q.correct)).size).toBeGreaterThan(1);
  });

  it('refuses text that is not JSON, the wrong number of questions or options, and not exactly one correct option', () => {
    expect(problemsOf('Claro! Aqui está o quiz: ...')).toMatch(/not JSON/);
    expect(problemsOf(modelQuiz(text, 9))).toMatch(/questions/);
    const twoCorrect = JSON.parse(modelQuiz(text));
    twoCorrect.questions[3].options[1].correct = true;
    expect(problemsOf(JSON.stringify(twoCorrect))).toMatch(/questions\.3: exactly one option must be correct/);
    const noneCorrect = JSON.parse(modelQuiz(text));
    noneCorrect.questions[0].options[0].correct = false;
    expect(problemsOf(JSON.stringify(noneCorrect))).toMatch(/exactly one/);
    const threeOptions = JSON.parse(modelQuiz(text));
    threeOptions.questions[2].options.pop();
    expect(problemsOf(JSON.stringify(threeOptions))).toMatch(/questions\.2\.options/);
    const sameOptions = JSON.parse(modelQuiz(text));
    sameOptions.questions[5].options[2].text = sameOptions.questions[5].options[1].text.toUpperCase();
    expect(problemsOf(JSON.stringify(sameOptions))).toMatch(/options must differ/);
  });

  it('refuses a question whose evidence is not quoted from the edition (spacing and case aside)', () => {
    const invented = JSON.parse(modelQuiz(text));
    invented.questions[7].evidence = 'A Petrobras comprou a Vale por R$ 1 trilhão nesta semana.';
    expect(problemsOf(JSON.stringify(invented))).toMatch(/questions\.7: evidence must be quoted from the edition/);
    const respaced = JSON.parse(modelQuiz(text));
    respaced.questions[7].evidence = `  ${respaced.questions[7].evidence.toUpperCase().replace(/ /g, '\n ')} `;
    expect(problemsOf(JSON.stringify(respaced))).toBe('');
  });
});

describe('score', () => {
  const quiz = { minCorrectAnswers: QUIZ_RULES.minCorrectAnswers, questions: [0, 1, 2, 3, 0, 1, 2, 3, 0, 1].map((correct) => ({ text: 'q', options: ['a', 'b', 'c', 'd'], correct })) };
  it('passes with 6 correct answers and fails with 5, listing each answer against the correct option', () => {
    const six = score(quiz, [0, 1, 2, 3, 0, 1, 3, 0, 1, 2]);
    expect(six).toMatchObject({ correctAnswers: 6, passed: true });
    expect(six.results[6]).toEqual({ number: 7, chosen: 3, correct: 2, isCorrect: false });
    expect(score(quiz, [0, 1, 2, 3, 0, 2, 3, 0, 1, 2])).toMatchObject({ correctAnswers: 5, passed: false });
  });

  it('takes exactly ten answers between 0 and 3', () => {
    expect(Answers.safeParse([0, 1, 2, 3, 0, 1, 2, 3, 0, 1]).success).toBe(true);
    expect(Answers.safeParse([0, 1, 2]).success).toBe(false);
    expect(Answers.safeParse([0, 1, 2, 3, 0, 1, 2, 3, 0, 4]).success).toBe(false);
    expect(Answers.safeParse([0, 1, 2, 3, 0, 1, 2, 3, 0, 1.5]).success).toBe(false);
  });

  it('refuses a manual question without four different options or with a correct index out of range', () => {
    expect(ManualQuestion.safeParse({ text: 'Pergunta?', options: ['a', 'b', 'c', 'd'], correct: 3 }).success).toBe(true);
    expect(ManualQuestion.safeParse({ text: 'Pergunta?', options: ['a', 'b', 'c'], correct: 0 }).success).toBe(false);
    expect(ManualQuestion.safeParse({ text: 'Pergunta?', options: ['a', 'b', 'c', 'A'], correct: 0 }).success).toBe(false);
    expect(ManualQuestion.safeParse({ text: 'Pergunta?', options: ['a', 'b', 'c', 'd'], correct: 4 }).success).toBe(false);
  });
});
