import { useTranslation } from 'react-i18next';
import type { Reading } from '../api';
import { formatDate } from '../i18n';
import { Failure, Loading, useResource } from './common';

export function ReadingPage() {
  const { t, i18n } = useTranslation();
  const reading = useResource<Reading>('/api/account/reading');
  if (reading.error) return <Failure message={reading.error} />;
  const r = reading.data;
  if (!r) return <Loading />;
  const lng = i18n.language;
  return (
    <>
      <h1>{t('reading.title')}</h1>
      <div className="stats">
        <section className="card stat" aria-labelledby="streak-current">
          <h2 id="streak-current">{t('reading.current')}</h2>
          <p className="big" data-testid="streak-current">
            {t('reading.days', { count: r.streak.current })}
          </p>
        </section>
        <section className="card stat" aria-labelledby="streak-longest">
          <h2 id="streak-longest">{t('reading.longest')}</h2>
          <p className="big">{t('reading.days', { count: r.streak.longest })}</p>
        </section>
      </div>
      {r.streak.lastReadDate ? <p className="muted">{t('reading.lastRead', { date: formatDate(r.streak.lastReadDate, lng) })}</p> : null}
      <section className="card" aria-labelledby="missed">
        <h2 id="missed">{t('reading.missed')}</h2>
        {r.streak.missedRecoverable.length === 0 ? (
          <p>{t('reading.noMissed')}</p>
        ) : (
          <ul>
            {r.streak.missedRecoverable.map((m) => (
              <li key={m.date}>{formatDate(m.date, lng)}</li>
            ))}
          </ul>
        )}
      </section>
      <section className="card" aria-labelledby="quizzes">
        <h2 id="quizzes">{t('reading.quizzes')}</h2>
        {r.quizzes.length === 0 ? (
          <p>{t('reading.noQuizzes')}</p>
        ) : (
          <ul className="quizzes">
            {r.quizzes.map((q) => (
              <li key={q.id}>
                <strong>{q.title}</strong> <span className="muted">{q.quizDate}</span>
                <br />
                {q.attemptResult
                  ? q.attemptResult.passed
                    ? t('reading.passed', { n: q.attemptResult.correctAnswers })
                    : t('reading.failed', { n: q.attemptResult.correctAnswers })
                  : q.canSubmit
                    ? t('reading.open', { date: formatDate(q.availableUntil, lng) })
                    : t('reading.closed')}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
