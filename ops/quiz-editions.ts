/**
 * Demo editions for `seed` (issue 12): the morning and night editions of the last 14 days (Monday to
 * Saturday), written in Portuguese from the articles stored for each day, so that quizzes can be
 * made at once. The morning edition carries the day's news published before noon (the newsletter's
 * time zone), the night edition the rest; an edition without news of its own carries the latest
 * news before it. Editions are dated 09:00 and 19:00 at UTC−3 (São Paulo's offset). Replaces the
 * editions it writes (idempotent).
 */
import type { Connection } from 'mongoose';
import type { ArticleDoc } from '../models/news/article.rules';
import { addDays, EDITIONS, hasEditions, localDate, type Edition } from '../models/quiz/calendar.rules';
import { createEditionRepo } from '../models/quiz/edition.repo';

const DAYS = 14;
const PER_EDITION = 6;
const WEEKDAYS_PT = ['domingo', 'segunda-feira', 'terça-feira', 'quarta-feira', 'quinta-feira', 'sexta-feira', 'sábado'];

type Story = Pick<ArticleDoc, 'title' | 'subtitle' | 'summary' | 'publishedAt'>;

/** The text of one edition from its stories (Portuguese, Markdown). */
export function composeEdition(date: string, edition: Edition, stories: readonly Story[]): { title: string; text: string } {
  const [y, m, d] = date.split('-');
  const weekday = WEEKDAYS_PT[new Date(`${date}T12:00:00Z`).getUTCDay()]!;
  const title = `${edition === 'morning' ? 'Edição da manhã' : 'Edição da noite'} de ${weekday}, ${d}/${m}/${y}`;
  const opening = edition === 'morning' ? `Bom dia! Estas são as notícias que abrem a ${weekday}.` : `Boa noite! O que marcou a ${weekday}.`;
  const body = stories.map((s) => [`## ${s.title}`, s.subtitle, s.summary].filter(Boolean).join('\n\n'));
  return { title, text: [`# ${title}`, opening, ...body, 'Até a próxima edição!'].join('\n\n') };
}

export async function seedEditions(conn: Connection, timeZone: string, now = new Date()): Promise<{ editions: number }> {
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
      const { title, text } = composeEdition(date, edition, stories.slice(-PER_EDITION).map((a) => a.story));
      if (text.length < 200) continue;
      const hour = edition === 'morning' ? '09:00:00' : '19:00:00';
      await editions.put(date, edition, { title, text, publishedAt: new Date(`${date}T${hour}-03:00`).toISOString() });
      written++;
    }
  }
  return { editions: written };
}
