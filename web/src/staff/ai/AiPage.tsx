/**
 * The AI section (issue 38 item 5, ai.edit): the agents (/staff/ai), the tools (/staff/ai/tools)
 * and the MCP context providers (/staff/ai/providers), each listed, registered, changed and
 * deleted; a playground to try an agent (/staff/ai/playground); and the use per user and model
 * (/staff/ai/usage: a chart and a table). Its look is ./ai.css, loaded with this chunk.
 */
import './ai.css';
import { useTranslation } from 'react-i18next';
import { Navigate, NavLink, Route, Routes, useLocation } from 'react-router';
import { STAFF_NS } from '../i18n';
import { PageHeader } from '../ui';
import { AgentsView } from './AgentsView';
import { PlaygroundView } from './PlaygroundView';
import { ProvidersView } from './ProvidersView';
import { NS } from './shared';
import { ToolsView } from './ToolsView';
import { UsageView } from './UsageView';

type View = 'agents' | 'tools' | 'providers' | 'playground' | 'usage';

const VIEWS: [View, string][] = [
  ['agents', '/staff/ai'],
  ['tools', '/staff/ai/tools'],
  ['providers', '/staff/ai/providers'],
  ['playground', '/staff/ai/playground'],
  ['usage', '/staff/ai/usage'],
];

export default function AiPage() {
  return (
    <Routes>
      <Route index element={<Tabbed view="agents" />} />
      <Route path="tools" element={<Tabbed view="tools" />} />
      <Route path="providers" element={<Tabbed view="providers" />} />
      <Route path="playground" element={<Tabbed view="playground" />} />
      <Route path="usage" element={<Tabbed view="usage" />} />
      <Route path="*" element={<Navigate to="/staff/ai" replace />} />
    </Routes>
  );
}

function Tabbed({ view }: { view: View }) {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const { pathname } = useLocation();
  return (
    <>
      {/* Keyed by the address: each view's heading takes the focus after a navigation. */}
      <PageHeader key={pathname} title={t('title')} lead={t('lead')} documentTitle={shell('documentTitle', { page: `${t(`views.${view}`)} · ${t('title')}` })} />
      <nav className="ai-tabs" aria-label={t('views.label')}>
        <ul>
          {VIEWS.map(([v, to]) => (
            <li key={v}>
              <NavLink to={to} end>
                {t(`views.${v}`)}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      {view === 'agents' ? <AgentsView /> : view === 'tools' ? <ToolsView /> : view === 'providers' ? <ProvidersView /> : view === 'playground' ? <PlaygroundView /> : <UsageView />}
    </>
  );
}
