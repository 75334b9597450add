/** How the page's live updates are doing: "Live", "Connecting…", "Reconnecting…", or off (no EventSource). */
import { useTranslation } from 'react-i18next';
import type { LiveStatus } from './live';
import { NS } from './parts';

export function LiveBadge({ status }: { status: LiveStatus }) {
  const { t } = useTranslation(NS);
  return (
    <span className={`sd-live sd-live-${status}`} data-testid="live-status">
      <span className="sd-live-dot" aria-hidden="true" />
      {t(`live.status.${status}`)}
    </span>
  );
}
