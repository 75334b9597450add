/**
 * The Support desk section (issue 38 item 2): the queue (/staff/support) and a ticket
 * (/staff/support/:id). Above both routes: the keyboard shortcuts (and their help dialog) and the
 * running bulk operation, so that it goes on while a ticket is open. Its look is ./support.css,
 * loaded with this chunk.
 */
import './support.css';
import { Navigate, Route, Routes, useParams } from 'react-router';
import { BulkProvider } from './bulk';
import QueuePage from './QueuePage';
import { ShortcutsProvider } from './shortcuts';
import TicketPage from './TicketPage';

export default function SupportPage() {
  return (
    <ShortcutsProvider>
      <BulkProvider>
        <Routes>
          <Route index element={<QueuePage />} />
          <Route path=":id" element={<TicketRoute />} />
          <Route path="*" element={<Navigate to="/staff/support" replace />} />
        </Routes>
      </BulkProvider>
    </ShortcutsProvider>
  );
}

/** A ticket's page, started afresh for each ticket (its stream, presence and draft are its own). */
function TicketRoute() {
  const { id } = useParams();
  const ticketId = Number(id);
  if (!Number.isSafeInteger(ticketId) || ticketId < 1) return <Navigate to="/staff/support" replace />;
  return <TicketPage key={ticketId} ticketId={ticketId} />;
}
