/**
 * Demo editions for `seed` (issue 12): the morning and night editions of the last 14 days (Monday to
 * Saturday), written in Portuguese from the articles stored for each day, so that quizzes can be
 * made at once. The morning edition carries the day's news published before noon (the newsletter's
 * time zone), the night edition the rest; an edition without news of its own carries the latest
 * news before it. Editions are dated 09:00 and 19:00 at UTC−3 (São Paulo's offset). Replaces the
 * editions it writes (idempotent).
 *
 * And a demonstration quiz for each edition with enough stories that has none, so a fresh install
 * shows quizzes without an AI provider: "which of these headlines (or summaries) was in this
 * edition?", the distractors taken from other days' editions. Marked as written by hand (origin
 * `manual`, a description saying it is a demonstration); with a provider configured, the daily
 * schedule makes the real ones.
 */
import type { Connection } from 'mongoose';
import type { ArticleDoc } from '../models/news/article.rules';
import { EDITIONS, hasEditions, type Edition } from '../models/quiz/calendar.rules';
import { addDays, localDate } from '../models/shared/calendar.rules';
import { createEditionRepo } from '../models/quiz/edition.repo';
import { editionId } from '../models/quiz/edition.rules';
import { createQuizRepo } from '../models/quiz/quiz.repo';
import { OPTIONS_PER_QUESTION, QUIZ_RULES, quizTitle, type QuizQuestion } from '../models/quiz/quiz.rules';
import { quizDateOf } from '../models/quiz/calendar.rules';

const DAYS = 14;
const PER_EDITION = 6;
/** Stories an edition carries at least (recalling earlier news): enough for a demonstration quiz. */
const MIN_STORIES = 4;
const WEEKDAYS_PT = ['domingo', 'segunda-feira', 'terça-feira', 'quarta-feira', 'quinta-feira', 'sexta-feira', 'sábado'];

type Story = Pick<ArticleDoc, 'title' | 'subtitle' | 'summary' | 'publishedAt'>;

/** The text of one edition from its stories, and earlier ones it recalls (Portuguese, Markdown). */
export function composeEdition(date: string, edition: Edition, stories: readonly Story[], recalled: readonly Story[] = []): { title: string; text: string } {
  const [y, m, d] = date.split('-');
  const weekday = WEEKDAYS_PT[new Date(`${date}T12:00:00Z`).getUTCDay()]!;
  const title = `${edition === 'morning' ? 'Edição da manhã' : 'Edição da noite'} de ${weekday}, ${d}/${m}/${y}`;
  const opening = edition === 'morning' ? `Bom dia! Estas são as notícias que abrem a ${weekday}.` : `Boa noite! O que marcou a ${weekday}.`;
  const body = (list: readonly Story[]) => list.map((s) => [`## ${s.title}`, s.subtitle, s.summary].filter(Boolean).join('\n\n'));
  const recap = recalled.length ? ['# Caso você tenha perdido', ...body(recalled)] : [];
  return { title, text: [`# ${title}`, opening, ...body(stories), ...recap, 'Até a próxima edição!'].join('\n\n') };
}

export async function seedEditions(conn: Connection, timeZone: string, now = new Date()): Promise<{ editions: number; quizzes: number }> {
  const today = localDate(now, timeZone);
  const first = addDays(today, -DAYS);
  const articles = (await conn
    .db!.collection<ArticleDoc>('articles')
    .find({ publishedAt: { $gte: new Date(`${addDays(first, -7)}T00:00:00Z`), $lt: now } }, { projection: { title: 1, subtitle: 1, summary: 1, publishedAt: 1 } })
    .toArray()) as Story[];
  // Each article's local day and whether it came before noon, worked out once.
  const hourOf = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', hourCycle: 'h23' });
  const byTime = articles
    .map((a) => ({ story: a, day: localDate(a.publishedAt, timeZone), morning: Number(hourOf.format(a.publishedAt)) < 12 }))
    .sort((a, b) => a.story.publishedAt.getTime() - b.story.publishedAt.getTime());
  const editions = createEditionRepo(conn);
  let written = 0;
  const made: { date: string; edition: Edition; stories: Story[] }[] = [];
  for (let date = first; date < today; date = addDays(date, 1)) {
    if (!hasEditions(date)) continue;
    const ofDay = byTime.filter((a) => a.day === date);
    for (const edition of EDITIONS) {
      let stories = ofDay.filter((a) => a.morning === (edition === 'morning'));
      if (stories.length === 0) {
        // No news of its own: the latest before the edition's time.
        const until = edition === 'morning' ? (ofDay.find((a) => !a.morning)?.story.publishedAt.getTime() ?? Infinity) : Infinity;
        stories = byTime.filter((a) => a.day <= date && a.story.publishedAt.getTime() < until).slice(-3);
      }
      if (stories.length === 0) continue;
      const own = stories.slice(-PER_EDITION).map((a) => a.story);
      // A quiet edition recalls the latest news before it, as newsletters do ("caso você tenha perdido").
      const first = own[0]!.publishedAt.getTime();
      const recalled = own.length >= MIN_STORIES ? [] : byTime.filter((a) => a.story.publishedAt.getTime() < first).slice(-(MIN_STORIES - own.length)).map((a) => a.story);
      const { title, text } = composeEdition(date, edition, own, recalled);
      if (text.length < 200) continue;
      const hour = edition === 'morning' ? '09:00:00' : '19:00:00';
      await editions.put(date, edition, { title, text, publishedAt: new Date(`${date}T${hour}-03:00`).toISOString() });
      written++;
      made.push({ date, edition, stories: [...own, ...recalled] });
    }
  }
  return { editions: written, quizzes: await seedQuizzes(conn, made) };
}

/** A deterministic number in [0, 1) for a key (the same demonstration on every run). */
function unit(key: string): number {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return (h >>> 0) / 2 ** 32;
}

/** The demonstration questions of an edition: its headlines and summaries among other days'. */
export function demonstrationQuestions(key: string, own: readonly Story[], others: readonly Story[]): QuizQuestion[] | null {
  const asked = [
    ...own.map((s) => ({ kind: 'title' as const, answer: s.title })),
    ...own.filter((s) => s.summary).map((s) => ({ kind: 'summary' as const, answer: s.summary! })),
    ...own.filter((s) => s.subtitle).map((s) => ({ kind: 'subtitle' as const, answer: s.subtitle! })),
  ].slice(0, QUIZ_RULES.totalQuestions);
  if (asked.length < QUIZ_RULES.totalQuestions) return null;
  const ownTexts = new Set(own.flatMap((s) => [s.title, s.summary, s.subtitle]));
  const distinct = (texts: (string | null | undefined)[]) => [...new Set(texts.filter((t): t is string => !!t && !ownTexts.has(t)))];
  const pool = { title: distinct(others.map((s) => s.title)), summary: distinct(others.map((s) => s.summary)), subtitle: distinct(others.map((s) => s.subtitle)) };
  const questions: QuizQuestion[] = [];
  for (const [i, q] of asked.entries()) {
    const candidates = pool[q.kind];
    if (candidates.length < OPTIONS_PER_QUESTION - 1) return null;
    const start = Math.floor(unit(`${key}|${i}`) * candidates.length);
    const wrong = Array.from({ length: OPTIONS_PER_QUESTION - 1 }, (_, k) => candidates[(start + k) % candidates.length]!);
    const correct = Math.floor(unit(`${key}|${i}|correct`) * OPTIONS_PER_QUESTION);
    const options = [...wrong];
    options.splice(correct, 0, q.answer);
    questions.push({
      text: { title: 'Qual destas manchetes saiu nesta edição?', summary: 'Qual destes resumos saiu nesta edição?', subtitle: 'Qual destes subtítulos saiu nesta edição?' }[q.kind],
      options,
      correct,
    });
  }
  return questions;
}

async function seedQuizzes(conn: Connection, made: readonly { date: string; edition: Edition; stories: Story[] }[]): Promise<number> {
  const quizzes = createQuizRepo(conn);
  let created = 0;
  for (const e of made) {
    const key = editionId(e.date, e.edition);
    const others = made.filter((o) => o.date !== e.date).flatMap((o) => o.stories);
    const questions = demonstrationQuestions(key, e.stories, others);
    if (!questions) continue;
    const result = await quizzes.insert({
      date: e.date,
      edition: e.edition,
      quizDate: quizDateOf(e.date, e.edition),
      postId: key,
      title: quizTitle(e.date, e.edition),
      description: 'Quiz de demonstração (seed): manchetes, resumos e subtítulos desta edição entre os de outros dias. Acerte 6 ou mais para recuperar o dia.',
      minCorrectAnswers: QUIZ_RULES.minCorrectAnswers,
      questions,
      origin: 'manual',
    });
    if (result.created) created++;
  }
  return created;
}
