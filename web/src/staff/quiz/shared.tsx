/** Pieces the quiz pages share: the namespace of their words, an edition's name, a quiz's origin, a failure's words. */
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { Failure } from '../api';
import { sectionNs } from '../i18n';
import { useFailureText } from '../ui';
import type { AdminQuiz } from './api';
import { formatDay } from './format';

export const NS = sectionNs('quiz');

/** "Tue, 24 Nov 2026 · Morning". */
export function QuizDay({ date, edition }: { date: string; edition: AdminQuiz['edition'] }) {
  const { t, i18n } = useTranslation(NS);
  return (
    <>
      {formatDay(date, i18n.language)} · {t(`editions.${edition}`)}
    </>
  );
}

/** Generated (and by which model) or written by hand. */
export function Origin({ quiz }: { quiz: Pick<AdminQuiz, 'origin' | 'model'> }) {
  const { t } = useTranslation(NS);
  return (
    <span className={`quiz-origin ${quiz.origin}`}>
      {quiz.origin === 'generated' ? (quiz.model ? t('origin.generatedBy', { model: quiz.model }) : t('origin.generated')) : t('origin.manual')}
    </span>
  );
}

/**
 * A failure of a quiz action in the reader's words: a 409 and a 503 have the action's own words
 * (`<action>.conflict`, `<action>.unavailable`) when it has them; the rest the console's.
 */
export function useActionFailure(): (action: string, failure: Failure) => string {
  const { t, i18n } = useTranslation(NS);
  const shell = useFailureText();
  return useCallback(
    (action: string, f: Failure) => {
      const key = f.kind === 'conflict' ? `${action}.conflict` : f.kind === 'unavailable' ? `${action}.unavailable` : f.kind === 'invalid' ? `${action}.invalid` : f.kind === 'notFound' ? `${action}.notFound` : null;
      if (key && i18n.exists(key, { ns: NS })) return t(key, { message: f.message });
      return shell(f);
    },
    [t, i18n, shell],
  );
}

/** Moves the focus to a heading (by id) that is not focusable by itself: after a page turn, a change that removed the control pressed. */
export function focusHeading(id: string): void {
  const heading = document.getElementById(id);
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus();
}
