/**
 * The desk's keyboard shortcuts: single keys (j, k, x, r, e, a, u, /, ?), as help desks have them.
 * They are off while typing (a text field, a text area, a list box, an editable region), while a
 * dialog is open, and with Ctrl, Alt or Meta held. Single-key shortcuts can get in the way of
 * speech input and of people who press keys by accident (WCAG 2.1.4), so the help dialog (`?`, or
 * the "Keyboard shortcuts" button, which works either way) turns them off and on, remembered in
 * this browser.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Modal } from '../ui';
import { NS } from './parts';

const STORAGE_KEY = 'supportShortcuts';

interface Shortcuts {
  enabled: boolean;
  openHelp: () => void;
}

const ShortcutsContext = createContext<Shortcuts | null>(null);

const TEXT_INPUTS = new Set(['text', 'search', 'email', 'number', 'password', 'tel', 'url', 'date', 'datetime-local', 'month', 'time', 'week']);

/** Whether keys pressed in `target` are someone typing (shortcuts stay quiet). */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) return TEXT_INPUTS.has(target.type);
  return false;
}

const readEnabled = (): boolean => {
  try {
    return localStorage.getItem(STORAGE_KEY) !== 'off';
  } catch {
    return true;
  }
};

export function ShortcutsProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation(NS);
  const [enabled, setEnabled] = useState(readEnabled);
  const [help, setHelp] = useState(false);
  const openHelp = useCallback(() => setHelp(true), []);
  const change = (on: boolean) => {
    setEnabled(on);
    try {
      localStorage.setItem(STORAGE_KEY, on ? 'on' : 'off');
    } catch {
      // private mode: for this page only
    }
  };

  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '?' || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || isTyping(e.target) || document.querySelector('dialog[open]')) return;
      e.preventDefault();
      setHelp(true);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [enabled]);

  const value = useMemo(() => ({ enabled, openHelp }), [enabled, openHelp]);
  const rows: [string[], string][] = [
    [['j', 'k'], t('keys.move')],
    [['Enter'], t('keys.open')],
    [['x'], t('keys.select')],
    [['r'], t('keys.reply')],
    [['e'], t('keys.resolve')],
    [['a'], t('keys.assign')],
    [['u'], t('keys.back')],
    [['/'], t('keys.search')],
    [['?'], t('keys.help')],
  ];
  return (
    <ShortcutsContext.Provider value={value}>
      {children}
      <Modal open={help} title={t('keys.title')} onClose={() => setHelp(false)} className="sd-keys-dialog">
        <p className="muted">{t('keys.lead')}</p>
        <table className="sd-keys">
          <caption className="visually-hidden">{t('keys.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('keys.key')}</th>
              <th scope="col">{t('keys.action')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([keys, what]) => (
              <tr key={keys.join()}>
                <th scope="row">
                  {keys.map((k, i) => (
                    <span key={k}>
                      {i > 0 ? ` ${t('keys.or')} ` : null}
                      <kbd>{k}</kbd>
                    </span>
                  ))}
                </th>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <label className="check sd-keys-toggle">
          <input type="checkbox" checked={enabled} onChange={(e) => change(e.target.checked)} />
          {t('keys.enabled')}
        </label>
        <div className="staff-dialog-actions">
          <button type="button" data-autofocus="" onClick={() => setHelp(false)}>
            {t('keys.close')}
          </button>
        </div>
      </Modal>
    </ShortcutsContext.Provider>
  );
}

export function useShortcutsState(): Shortcuts {
  const s = useContext(ShortcutsContext);
  if (!s) throw new Error('useShortcuts outside ShortcutsProvider');
  return s;
}

/**
 * A page's keys, while it is shown: `handlers[e.key]` is called for a key pressed outside text
 * fields and dialogs, with no modifier. A handler returns false to let the key through.
 */
export function useShortcuts(handlers: Record<string, (e: KeyboardEvent) => boolean | void>): void {
  const { enabled } = useShortcutsState();
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || isTyping(e.target) || document.querySelector('dialog[open]')) return;
      const handler = latest.current[e.key];
      if (!handler) return;
      if (handler(e) !== false) e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [enabled]);
}

/** The header's button that opens the list of shortcuts (and their switch), whether they are on or off. */
export function ShortcutsButton() {
  const { t } = useTranslation(NS);
  const { openHelp, enabled } = useShortcutsState();
  return (
    <button type="button" className="secondary sd-keys-button" onClick={openHelp} aria-haspopup="dialog">
      {t('keys.button')}
      <span className="muted small"> {enabled ? t('keys.on') : t('keys.off')}</span>
    </button>
  );
}
