/**
 * The Quiz section (issue 38 item 4, quiz.admin): the quizzes (/staff/quiz: the list, making one for
 * a date), the editions they are made from (/staff/quiz/editions), the daily generation schedule
 * (/staff/quiz/schedule: its state, pause, resume, run now), and one quiz with its answers
 * (/staff/quiz/:id: regenerate, delete). Its look is ./quiz.css, loaded with this chunk.
 */
import './quiz.css';
import { useTranslation } from 'react-i18next';
import { Navigate, NavLink, Route, Routes, useLocation, useParams } from 'react-router';
import { STAFF_NS } from '../i18n';
import { PageHeader } from '../ui';
import { EditionsView } from './EditionsView';
import { QuizDetail } from './QuizDetail';
import { QuizzesView } from './QuizzesView';
import { ScheduleView } from './ScheduleView';
import { NS } from './shared';

type View = 'quizzes' | 'editions' | 'schedule';

export default function QuizPage() {
  return (
    <Routes>
      <Route index element={<Tabbed view="quizzes" />} />
      <Route path="editions" element={<Tabbed view="editions" />} />
      <Route path="schedule" element={<Tabbed view="schedule" />} />
      <Route path=":id" element={<DetailRoute />} />
      <Route path="*" element={<Navigate to="/staff/quiz" replace />} />
    </Routes>
  );
}

/** The section's heading, its views as tabs (links), and the view chosen. */
function Tabbed({ view }: { view: View }) {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const { pathname } = useLocation();
  const views: [View, string][] = [
    ['quizzes', '/staff/quiz'],
    ['editions', '/staff/quiz/editions'],
    ['schedule', '/staff/quiz/schedule'],
  ];
  return (
    <>
      {/* Keyed by the address: each view's heading takes the focus after a navigation. */}
      <PageHeader key={pathname} title={t('title')} lead={t('lead')} documentTitle={shell('documentTitle', { page: `${t(`views.${view}`)} · ${t('title')}` })} />
      <nav className="quiz-tabs" aria-label={t('views.label')}>
        <ul>
          {views.map(([v, to]) => (
            <li key={v}>
              <NavLink to={to} end>
                {t(`views.${v}`)}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      {view === 'quizzes' ? <QuizzesView /> : view === 'editions' ? <EditionsView /> : <ScheduleView />}
    </>
  );
}

function DetailRoute() {
  const { id } = useParams();
  if (!id) return <Navigate to="/staff/quiz" replace />;
  return <QuizDetail key={id} id={id} />;
}
