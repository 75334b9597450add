/**
 * /staff/quiz/:id: one quiz with its answers (GET /quiz/admin/{id}): every question, its options
 * with the correct one marked (in words, not by colour alone), and the edition's sentence that
 * answers it; how the quiz was made. Regenerate (POST /quiz/admin/{id}/regenerate, confirmed: a new
 * generation from the stored edition replaces it, waited for, with its progress told; the new quiz
 * is then shown), and delete (confirmed).
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import { failureOf, useStaffResource, type Failure } from '../api';
import { formatDateTime, STAFF_NS } from '../i18n';
import { ErrorState, LoadingState, PageHeader, Panel, useConfirm, useNotify } from '../ui';
import { quizApi, quizPath, type AdminQuizDetail, type QuizRegenerated } from './api';
import { formatDay } from './format';
import { NS, Origin, QuizDay, useActionFailure } from './shared';

const LETTERS = ['A', 'B', 'C', 'D'];

export function QuizDetail({ id }: { id: string }) {
  const { t, i18n } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const navigate = useNavigate();
  const location = useLocation();
  const notify = useNotify();
  const confirm = useConfirm();
  const actionFailure = useActionFailure();
  const quiz = useStaffResource<AdminQuizDetail>(`/quiz/admin/${encodeURIComponent(id)}`);
  const regenerated = (location.state as { regenerated?: QuizRegenerated } | null)?.regenerated;
  const [busy, setBusy] = useState<'regenerate' | 'delete' | null>(null);
  const [refusal, setRefusal] = useState<{ action: 'regenerate' | 'remove'; failure: Failure } | null>(null);

  const regenerate = async (q: AdminQuizDetail) => {
    setRefusal(null);
    const ok = await confirm({
      title: t('regenerate.confirmTitle'),
      body: (
        <>
          <p>{t('regenerate.confirmBody', { day: `${formatDay(q.date, i18n.language)} · ${t(`editions.${q.edition}`)}` })}</p>
          <p className="muted">{t('regenerate.confirmNote')}</p>
        </>
      ),
      confirmLabel: t('regenerate.confirm'),
    });
    if (!ok) return;
    setBusy('regenerate');
    try {
      const result = await quizApi.regenerate(q.id);
      notify(t('regenerate.done'));
      // The old quiz is gone: its page becomes the new one's.
      await navigate(quizPath(result.quizId), { replace: true, state: { regenerated: result } });
    } catch (err) {
      setRefusal({ action: 'regenerate', failure: failureOf(err) });
    } finally {
      setBusy(null);
    }
  };

  const remove = async (q: AdminQuizDetail) => {
    setRefusal(null);
    const ok = await confirm({
      title: t('remove.confirmTitle'),
      body: <p>{t('remove.confirmBody', { day: `${formatDay(q.date, i18n.language)} · ${t(`editions.${q.edition}`)}` })}</p>,
      confirmLabel: t('remove.confirm'),
      danger: true,
    });
    if (!ok) return;
    setBusy('delete');
    try {
      await quizApi.remove(q.id);
      notify(t('remove.done'));
      await navigate('/staff/quiz');
    } catch (err) {
      setRefusal({ action: 'remove', failure: failureOf(err) });
      setBusy(null);
    }
  };

  const q = quiz.data;
  const back = (
    <p className="quiz-back">
      <Link to="/staff/quiz">
        <span aria-hidden="true">← </span>
        {t('detail.back')}
      </Link>
    </p>
  );
  if (quiz.failure) {
    return (
      <>
        {back}
        <PageHeader title={t('detail.missing')} />
        <ErrorState failure={quiz.failure} onRetry={quiz.failure.kind === 'notFound' ? undefined : () => void quiz.reload()} />
      </>
    );
  }
  if (!q) {
    return (
      <>
        {back}
        <LoadingState />
      </>
    );
  }
  return (
    <>
      {back}
      <PageHeader
        title={q.title}
        lead={<QuizDay date={q.date} edition={q.edition} />}
        documentTitle={shell('documentTitle', { page: `${q.quizDate} · ${t('title')}` })}
        actions={
          <>
            <button type="button" className="secondary" disabled={busy !== null} onClick={() => void regenerate(q)}>
              {busy === 'regenerate' ? t('regenerate.running') : t('regenerate.action')}
            </button>
            <button type="button" className="secondary danger-outline" disabled={busy !== null} onClick={() => void remove(q)}>
              {t('remove.action')}
            </button>
          </>
        }
      />
      <div role="status" className="quiz-progress-region">
        {busy === 'regenerate' ? <RegenerateProgress /> : null}
      </div>
      {refusal ? (
        <div role="alert" className="staff-refusal" data-testid="quiz-refusal">
          <p className="error">{actionFailure(refusal.action, refusal.failure)}</p>
          <button type="button" className="link" onClick={() => setRefusal(null)}>
            {shell('ui.dismiss')}
          </button>
        </div>
      ) : null}
      {regenerated && regenerated.quizId === q.id ? (
        <div className="quiz-result ok-box" data-testid="quiz-regenerated">
          <p>{t('regenerate.result')}</p>
          <dl className="quiz-facts">
            <dt>{t('regenerate.newId')}</dt>
            <dd>
              <code className="quiz-code">{regenerated.quizId}</code>
            </dd>
            <dt>{t('regenerate.replaced')}</dt>
            <dd>
              <code className="quiz-code">{regenerated.replacedQuizId}</code>
            </dd>
            <dt>{t('regenerate.run')}</dt>
            <dd>
              <code className="quiz-code">{regenerated.workflowId}</code>
            </dd>
          </dl>
        </div>
      ) : null}
      <Panel title={t('detail.about')}>
        <p>{q.description}</p>
        <dl className="quiz-facts">
          <dt>{t('detail.origin')}</dt>
          <dd>
            <Origin quiz={q} />
          </dd>
          <dt>{t('detail.toPass')}</dt>
          <dd>{t('detail.toPassValue', { min: q.minCorrectAnswers, total: q.questions.length })}</dd>
          <dt>{t('detail.edition')}</dt>
          <dd>
            <code className="quiz-code">{q.postId}</code>
          </dd>
          {q.workflowId ? (
            <>
              <dt>{t('detail.run')}</dt>
              <dd>
                <code className="quiz-code">{q.workflowId}</code>
              </dd>
            </>
          ) : null}
          <dt>{t('detail.created')}</dt>
          <dd>{formatDateTime(q.createdAt, i18n.language)}</dd>
          <dt>{t('detail.id')}</dt>
          <dd>
            <code className="quiz-code">{q.id}</code>
          </dd>
        </dl>
      </Panel>
      <Panel title={t('detail.questions', { count: q.questions.length })}>
        <ol className="quiz-questions">
          {q.questions.map((question) => (
            <li key={question.number} className="quiz-question" data-question={question.number}>
              <p className="quiz-question-text">{question.text}</p>
              <ul className="quiz-options" aria-label={t('detail.optionsOf', { number: question.number })}>
                {question.options.map((option, i) => (
                  <li key={i} className={i === question.correct ? 'correct' : undefined}>
                    <span className="quiz-letter" aria-hidden="true">
                      {LETTERS[i]}
                    </span>
                    <span className="quiz-option-text">{option}</span>
                    {i === question.correct ? <span className="quiz-correct-tag">{t('detail.correct')}</span> : null}
                  </li>
                ))}
              </ul>
              {question.evidence ? (
                <blockquote className="quiz-evidence">
                  <span className="quiz-evidence-label">{t('detail.evidence')}</span> {question.evidence}
                </blockquote>
              ) : null}
            </li>
          ))}
        </ol>
      </Panel>
    </>
  );
}

/** What a regeneration is doing while the request waits for it (the time is not announced). */
function RegenerateProgress() {
  const { t } = useTranslation(NS);
  const [seconds, setSeconds] = useState(0);
  const started = useRef(Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setSeconds(Math.floor((Date.now() - started.current) / 1000)), 1000);
    return () => window.clearInterval(timer);
  }, []);
  return (
    <div className="quiz-progress" data-testid="quiz-regenerating">
      <span className="quiz-spinner" aria-hidden="true" />
      <p>
        {t('regenerate.progress')}{' '}
        <span aria-hidden="true" className="muted">
          {t('regenerate.elapsed', { seconds })}
        </span>
      </p>
    </div>
  );
}
