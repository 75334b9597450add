/** The roles to give, one checkbox each (every role of the model), with what each grants. */
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { ROLE_KEYS, STAFF_NS } from '../i18n';
import { orderRoles, STAFF_ROLES, type StaffRole } from '../roles';

export function RoleCheckboxes({
  legend,
  value,
  onChange,
  error,
}: {
  legend: string;
  value: readonly StaffRole[];
  onChange: (roles: StaffRole[]) => void;
  /** Shown under the legend and read with the group (no role chosen). */
  error?: string | null;
}) {
  const { t } = useTranslation(STAFF_NS);
  const id = useId();
  const errorId = `${id}-error`;
  const toggle = (role: StaffRole, on: boolean) => onChange(orderRoles(on ? [...value, role] : value.filter((r) => r !== role)));
  return (
    <fieldset className="staff-roles-field" {...(error ? { 'aria-describedby': errorId } : {})}>
      <legend>{legend}</legend>
      {error ? (
        <p id={errorId} className="error">
          {error}
        </p>
      ) : null}
      <ul className="staff-role-options">
        {STAFF_ROLES.map((role, i) => (
          <li key={role}>
            <input
              id={`${id}-${i}`}
              type="checkbox"
              name="roles"
              value={role}
              checked={value.includes(role)}
              onChange={(e) => toggle(role, e.target.checked)}
              aria-describedby={`${id}-${i}-help`}
            />
            <label htmlFor={`${id}-${i}`}>{t(`roles.${ROLE_KEYS[role]}`)}</label>
            <span id={`${id}-${i}-help`} className="muted staff-role-help">
              {t(`roleHelp.${ROLE_KEYS[role]}`)}
            </span>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
