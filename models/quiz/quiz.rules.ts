/**
 * Quizzes (issue 12, spec §2.1, §2.2, §8): ten questions of four options, exactly one correct,
 * made from one edition. What the model must write, how its answer is checked, and how an
 * attempt is scored. Pure.
 */
import { z } from 'zod';
import { type Edition, MAX_DAYS_RECOVERY } from './calendar.rules';

/** Spec §2.2 / §8. */
export const QUIZ_RULES = { maxDaysRecovery: MAX_DAYS_RECOVERY, minCorrectAnswers: 6, totalQuestions: 10, attemptsPerQuiz: 1 } as const;
export const OPTIONS_PER_QUESTION = 4;

/**
 * Failure types of quiz generation (activities, the workflow, the admin routes): a missing edition
 * ends a quiz's generation at once; an unusable model answer is asked for again.
 */
export const QUIZ_FAILURES = { editionMissing: 'QUIZ_EDITION_MISSING', invalidModelOutput: 'QUIZ_INVALID_MODEL_OUTPUT' } as const;

export interface QuizQuestion {
  text: string;
  options: string[];
  /** Index of the correct option (never shown before an attempt). */
  correct: number;
  /** The passage of the edition the question is drawn from (generated quizzes). */
  evidence?: string;
}

export interface QuizDoc {
  _id: string;
  date: string;
  edition: Edition;
  /** `YYYY-MM-DD` (morning) or `YYYY-MM-DD-night`. */
  quizDate: string;
  /** The edition's id. */
  postId: string;
  title: string;
  description: string;
  minCorrectAnswers: number;
  questions: QuizQuestion[];
  /** How it came to be: made by the model from the edition, or written by an admin. */
  origin: 'generated' | 'manual';
  /** The Temporal run that generated it. */
  workflowId?: string;
  model?: string;
  createdAt: Date;
}

const EDITION_PT: Record<Edition, string> = { morning: 'manhã', night: 'noite' };

/** `21/11/2026`. */
const brDate = (date: string) => date.split('-').reverse().join('/');

/** The title readers see: "Quiz da edição da manhã de 21/11/2026". */
export const quizTitle = (date: string, edition: Edition): string => `Quiz da edição da ${EDITION_PT[edition]} de ${brDate(date)}`;

export const quizDescription = (editionTitle: string): string =>
  `${QUIZ_RULES.totalQuestions} perguntas sobre a edição "${editionTitle}". Acerte ${QUIZ_RULES.minCorrectAnswers} ou mais para recuperar o dia na sua sequência de leitura.`;

/**
 * What the model is asked to write: a JSON schema within what OpenAI's strict structured outputs
 * accept (no length keywords), so the counts and the single correct option are checked by
 * `ModelQuiz` below rather than promised by the schema.
 */
export const MODEL_QUIZ_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['questions'],
  properties: {
    questions: {
      type: 'array',
      description: `Exactly ${QUIZ_RULES.totalQuestions} questions`,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['question', 'options', 'evidence'],
        properties: {
          question: { type: 'string', description: 'The question, in Brazilian Portuguese' },
          options: {
            type: 'array',
            description: `Exactly ${OPTIONS_PER_QUESTION} options, exactly one of them correct`,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['text', 'correct'],
              properties: { text: { type: 'string' }, correct: { type: 'boolean' } },
            },
          },
          evidence: { type: 'string', description: 'A sentence copied word for word from the edition that answers the question' },
        },
      },
    },
  },
} as const;

/** Lower case, accents and punctuation kept, runs of white space as one space: how evidence is found in the text. */
export const normaliseForQuote = (s: string): string => s.normalize('NFC').toLowerCase().replace(/[\s\u00a0]+/g, ' ').replace(/[“”«»]/g, '"').replace(/[‘’]/g, "'").trim();

const MIN_EVIDENCE = 15;

/** The model's answer, checked against the edition it was made from. */
export function modelQuizSchema(editionText: string) {
  const text = normaliseForQuote(editionText);
  const option = z.object({ text: z.string().trim().min(1).max(300), correct: z.boolean() });
  const question = z
    .object({
      question: z.string().trim().min(5).max(500),
      options: z.array(option).length(OPTIONS_PER_QUESTION),
      evidence: z.string().trim().min(MIN_EVIDENCE).max(2_000),
    })
    .refine((q) => q.options.filter((o) => o.correct).length === 1, 'exactly one option must be correct')
    .refine((q) => new Set(q.options.map((o) => normaliseForQuote(o.text))).size === OPTIONS_PER_QUESTION, 'options must differ')
    .refine((q) => text.includes(normaliseForQuote(q.evidence).replace(/^"|"$/g, '')), 'evidence must be quoted from the edition');
  return z.object({ questions: z.array(question).length(QUIZ_RULES.totalQuestions) });
}

export type ModelQuiz = z.output<ReturnType<typeof modelQuizSchema>>;

/** A quiz the model wrote for an edition, checked, before it is stored (the generation workflow carries it). */
export interface QuizDraft {
  date: string;
  edition: Edition;
  editionTitle: string;
  questions: QuizQuestion[];
  model: string;
}

/**
 * Parses and checks the model's output; the problems, in words, when it is unusable (the caller
 * asks again). Options are shuffled with `random` so the correct one is not always where the model
 * tends to put it.
 */
export function readModelQuiz(content: string, editionText: string, random: () => number = Math.random): { questions: QuizQuestion[] } | { problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return { problems: ['the answer is not JSON'] };
  }
  const parsed = modelQuizSchema(editionText).safeParse(json);
  if (!parsed.success) return { problems: parsed.error.issues.slice(0, 10).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`) };
  return {
    questions: parsed.data.questions.map((q) => {
      const options = [...q.options];
      for (let i = options.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [options[i], options[j]] = [options[j]!, options[i]!];
      }
      return { text: q.question, options: options.map((o) => o.text), correct: options.findIndex((o) => o.correct), evidence: q.evidence };
    }),
  };
}

/** The prompt: the edition, and what a good quiz about it is. */
export function quizPrompt(edition: { title: string; text: string; date: string; edition: Edition }): { system: string; user: string } {
  return {
    system: [
      'Você escreve quizzes de leitura para os assinantes de uma newsletter brasileira de notícias.',
      `Escreva exatamente ${QUIZ_RULES.totalQuestions} perguntas de múltipla escolha em português do Brasil sobre a edição abaixo, cada uma com exatamente ${OPTIONS_PER_QUESTION} opções e exatamente uma correta.`,
      'Cada pergunta deve ser respondida pelo texto da edição, e só por ele: nada de conhecimento externo.',
      'Em "evidence", copie palavra por palavra uma frase da edição que responde à pergunta.',
      'As opções erradas devem ser plausíveis e diferentes entre si.',
    ].join(' '),
    user: `Edição da ${EDITION_PT[edition.edition]} de ${brDate(edition.date)}: ${edition.title}\n\n${edition.text}`,
  };
}

/** The questions as readers see them before answering: no correct option, no evidence. */
export const publicQuestions = (q: readonly QuizQuestion[]) => q.map((x, i) => ({ number: i + 1, text: x.text, options: x.options }));

export interface Scored {
  correctAnswers: number;
  passed: boolean;
  /** Per question: the option chosen, the correct one. */
  results: { number: number; chosen: number; correct: number; isCorrect: boolean }[];
}

/** Scores ten answers (option indexes, in question order). */
export function score(quiz: Pick<QuizDoc, 'questions' | 'minCorrectAnswers'>, answers: readonly number[]): Scored {
  const results = quiz.questions.map((q, i) => ({ number: i + 1, chosen: answers[i]!, correct: q.correct, isCorrect: answers[i] === q.correct }));
  const correctAnswers = results.filter((r) => r.isCorrect).length;
  return { correctAnswers, passed: correctAnswers >= quiz.minCorrectAnswers, results };
}

/** A question written by an admin (POST /quiz/admin/create with questions). */
export const ManualQuestion = z.strictObject({
  text: z.string().max(500).trim().min(5),
  options: z
    .array(z.string().max(300).trim().min(1))
    .length(OPTIONS_PER_QUESTION)
    .refine((o) => new Set(o.map(normaliseForQuote)).size === o.length, 'options must differ'),
  correct: z.number().int().min(0).max(OPTIONS_PER_QUESTION - 1).describe('Index of the correct option (0–3)'),
});

/** Ten answers: the index (0–3) of the option chosen for each question, in order. */
export const Answers = z
  .array(z.number().int().min(0).max(OPTIONS_PER_QUESTION - 1))
  .length(QUIZ_RULES.totalQuestions)
  .describe('The index (0–3) of the option chosen for each of the ten questions, in order');
