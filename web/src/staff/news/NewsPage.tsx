/**
 * The News section (issue 38 item 3, news.admin): the news API's administration, a page per tab:
 * - /staff/news: the sources and their health (add, edit, disable or enable, remove, poll now);
 * - /staff/news/articles: articles by pipeline state and source, and /staff/news/articles/:id, one
 *   article (hide, unhide, and the correction of the model's classification, sentiment and
 *   entities beside the model's output);
 * - /staff/news/curation: the curation queue (accept, alias of an entity, dismiss);
 * - /staff/news/catalogue: the entity catalogue (aliases, ticker, CNPJ);
 * - /staff/news/enrichments: re-enrichment of a filter, its progress, and cancel.
 * Its look is ./news.css, loaded with this chunk.
 */
import './news.css';
import { Navigate, Route, Routes, useParams } from 'react-router';
import ArticlePage from './ArticlePage';
import ArticlesPage from './ArticlesPage';
import CataloguePage from './CataloguePage';
import CurationPage from './CurationPage';
import ReenrichPage from './ReenrichPage';
import SourcesPage from './SourcesPage';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export default function NewsPage() {
  return (
    <Routes>
      <Route index element={<SourcesPage />} />
      <Route path="articles" element={<ArticlesPage />} />
      <Route path="articles/:id" element={<ArticleRoute />} />
      <Route path="curation" element={<CurationPage />} />
      <Route path="catalogue" element={<CataloguePage />} />
      <Route path="enrichments" element={<ReenrichPage />} />
      <Route path="*" element={<Navigate to="/staff/news" replace />} />
    </Routes>
  );
}

/** An article's page, started afresh for each article (its form is its own). */
function ArticleRoute() {
  const { id } = useParams();
  if (!id || !UUID.test(id)) return <Navigate to="/staff/news/articles" replace />;
  return <ArticlePage key={id} articleId={id.toLowerCase()} />;
}
