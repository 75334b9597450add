/** Pieces the AI pages share: the namespace of their words, form fields with their help and errors, a registry's refusal. */
import { useCallback, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Failure } from '../api';
import { sectionNs } from '../i18n';
import { useFailureText } from '../ui';
import type { Problem } from './validate';

export const NS = sectionNs('ai');

/** Moves the focus to a heading (by id) that is not focusable by itself. */
export function focusHeading(id: string): void {
  const heading = document.getElementById(id);
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus();
}

/** A field's problem in words. */
export function useProblemText(): (p: Problem | undefined) => string | null {
  const { t } = useTranslation(NS);
  return useCallback((p: Problem | undefined) => (p ? t(p.key, p.values ?? {}) : null), [t]);
}

/** A refusal of the registry or of a run: a 409 and a 400 carry the API's reason (English), which is quoted. */
export function useRegistryFailure(): (f: Failure) => string {
  const { t } = useTranslation(NS);
  const shell = useFailureText();
  return useCallback(
    (f: Failure) => {
      if (f.kind === 'conflict') return t('errors.conflict', { message: f.message });
      if (f.kind === 'invalid') return t('errors.invalid', { message: f.message });
      if (f.kind === 'forbidden') return t('errors.forbidden', { message: f.message });
      return shell(f);
    },
    [t, shell],
  );
}

interface FieldProps {
  id: string;
  label: string;
  help?: ReactNode;
  error?: string | null;
  children: (describedBy: string | undefined, invalid: boolean) => ReactNode;
  className?: string;
}

/** A labelled control with its help and its error, tied to it (aria-describedby, aria-invalid). */
export function Field({ id, label, help, error, children, className }: FieldProps) {
  const describedBy = [help ? `${id}-help` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`ai-field${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children(describedBy, Boolean(error))}
      {help ? (
        <p id={`${id}-help`} className="muted ai-help">
          {help}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="error ai-field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A group of checkboxes (tools, context providers) with its legend, help and error. */
export function CheckboxGroup({
  id,
  legend,
  help,
  options,
  value,
  onChange,
  error,
}: {
  id: string;
  legend: string;
  help?: string;
  options: { value: string; label: string; description?: string }[];
  value: string[];
  onChange: (next: string[]) => void;
  error?: string | null;
}) {
  const describedBy = [help ? `${id}-help` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <fieldset className="ai-checks" aria-describedby={describedBy} data-invalid={error ? 'true' : undefined}>
      <legend>{legend}</legend>
      {help ? (
        <p id={`${id}-help`} className="muted ai-help">
          {help}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="error ai-field-error">
          {error}
        </p>
      ) : null}
      <ul>
        {options.map((o) => (
          <li key={o.value}>
            <input
              type="checkbox"
              id={`${id}-${o.value}`}
              name={id}
              checked={value.includes(o.value)}
              onChange={(e) => onChange(e.target.checked ? [...value, o.value] : value.filter((v) => v !== o.value))}
              aria-describedby={o.description ? `${id}-${o.value}-d` : undefined}
            />
            <label htmlFor={`${id}-${o.value}`}>{o.label}</label>
            {o.description ? (
              <span id={`${id}-${o.value}-d`} className="muted ai-check-help">
                {o.description}
              </span>
            ) : null}
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

/** Focuses the first field with a problem (its control carries aria-invalid). */
export function focusFirstProblem(form: HTMLFormElement | null): void {
  form?.querySelector<HTMLElement>('input[aria-invalid="true"], textarea[aria-invalid="true"], select[aria-invalid="true"], fieldset[data-invalid="true"] input')?.focus();
}

/** JSON shown as written (a schema, a tool's arguments or result); it scrolls when long, so it can take the focus (a keyboard scrolls it). */
export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="ai-json" tabIndex={0} role="region" aria-label={label}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}
