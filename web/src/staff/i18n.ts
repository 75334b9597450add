/**
 * The staff console's words, in English and Brazilian Portuguese. The shell's own (layout, shared
 * UI, roles, errors) are the `staff` namespace, below; each section's are its own namespace,
 * `staff-<id>`, from its folder's i18n.ts (./<section>/i18n.ts), so that no two sections share a
 * file. Both are added to the app's i18next when the console's chunk loads (registerStaffMessages),
 * so the customer dashboard's bundle carries none of them.
 */
import i18n from '../i18n';
import type { StaffRole } from './roles';
import type { StaffSection } from './section';

export const STAFF_NS = 'staff';

export const en = {
  console: 'Staff console',
  nav: 'Staff console sections',
  backToDashboard: 'Back to your dashboard',
  signedInAs: 'Signed in as {{email}}',
  yourRoles: 'Your roles',
  home: 'Staff console',
  homeLead: 'Choose a section.',
  noSections: 'Your roles give you no section of the console yet.',
  placeholder: 'This section is being built. Its pages will appear here.',
  documentTitle: '{{page}} · Staff console · Newsletter Platform',
  documentTitleHome: 'Staff console · Newsletter Platform',
  roles: {
    owner: 'Owner',
    supportManager: 'Support manager',
    supportAgent: 'Support agent',
    newsAdmin: 'News administrator',
    quizAdmin: 'Quiz administrator',
    aiEdit: 'AI editor',
    platformOps: 'Operations',
  },
  roleHelp: {
    owner: 'Everything below, and managing the staff (invitations, roles, audit log).',
    supportManager: 'The support desk and its reports.',
    supportAgent: 'The support desk: tickets and replies.',
    newsAdmin: 'Sources, articles and curation.',
    quizAdmin: 'Quizzes and editions.',
    aiEdit: 'The AI registry: read and change it.',
    platformOps: 'Operations: workflows, queues and health.',
  },
  status: { invited: 'Invited', active: 'Active' },
  notStaff: {
    title: 'This area is for staff members',
    lead: 'Your account ({{email}}) is not a member of the staff, so the staff console is not available to it.',
    invited: 'If you were invited recently: sign out, then sign in again with a code mailed to the invited address. The invitation is accepted then.',
    back: 'Back to your dashboard',
    signOut: 'Sign out',
  },
  noAccess: {
    title: 'No access to this section',
    lead: 'Your roles do not include this section. An owner can change your roles.',
    home: 'Go to the staff console',
  },
  ui: {
    loading: 'Loading…',
    retry: 'Try again',
    empty: 'Nothing here yet.',
    previous: 'Previous',
    next: 'Next',
    newer: 'Newer',
    older: 'Older',
    page: 'Page {{page}}',
    pageOf: 'Page {{page}} of {{pages}}',
    pagination: '{{label}}: pages',
    cancel: 'Cancel',
    confirm: 'Confirm',
    close: 'Close',
    dismiss: 'Dismiss',
    notifications: 'Notifications',
    tableScroll: '{{label}} (scrolls sideways)',
    failedSection: 'This section could not be loaded: {{message}}',
    reload: 'Reload the page',
  },
  errors: {
    title: 'Something went wrong',
    network: 'The dashboard could not be reached. Check your connection and try again.',
    signedOut: 'Your session has ended. Sign in again.',
    forbidden: 'You are not allowed to do this.',
    notFound: 'It was not found: it may have been removed meanwhile.',
    invalid: 'The request was refused: {{message}}',
    conflict: 'It was changed meanwhile: {{message}}',
    lastOwner: '{{email}} is the last active owner. Make another member an owner first (they must have signed in), then change or remove this one.',
    alreadyMember: '{{email}} is already a staff member ({{status}}). Change its roles instead.',
    staffFull: 'The staff holds at most {{max}} members. Remove one first.',
    tooMany: 'Too many requests. Wait a moment and try again.',
    unavailable: 'A service the dashboard needs is unavailable (nothing was changed). Try again in a moment.',
    unknown: 'Unexpected error: {{message}}',
  },
};

export type ShellMessages = typeof en;

export const pt: ShellMessages = {
  console: 'Console da equipe',
  nav: 'Seções do console da equipe',
  backToDashboard: 'Voltar ao seu painel',
  signedInAs: 'Conectado como {{email}}',
  yourRoles: 'Suas funções',
  home: 'Console da equipe',
  homeLead: 'Escolha uma seção.',
  noSections: 'Suas funções ainda não dão acesso a nenhuma seção do console.',
  placeholder: 'Esta seção está em construção. Suas páginas aparecerão aqui.',
  documentTitle: '{{page}} · Console da equipe · Newsletter Platform',
  documentTitleHome: 'Console da equipe · Newsletter Platform',
  roles: {
    owner: 'Proprietário',
    supportManager: 'Gerente de suporte',
    supportAgent: 'Agente de suporte',
    newsAdmin: 'Administrador de notícias',
    quizAdmin: 'Administrador de quizzes',
    aiEdit: 'Editor de IA',
    platformOps: 'Operações',
  },
  roleHelp: {
    owner: 'Tudo abaixo, e a gestão da equipe (convites, funções, registro de auditoria).',
    supportManager: 'A central de suporte e seus relatórios.',
    supportAgent: 'A central de suporte: chamados e respostas.',
    newsAdmin: 'Fontes, artigos e curadoria.',
    quizAdmin: 'Quizzes e edições.',
    aiEdit: 'O registro de IA: ler e alterar.',
    platformOps: 'Operações: workflows, filas e saúde.',
  },
  status: { invited: 'Convidado', active: 'Ativo' },
  notStaff: {
    title: 'Esta área é para membros da equipe',
    lead: 'Sua conta ({{email}}) não é membro da equipe, por isso o console da equipe não está disponível para ela.',
    invited: 'Se você foi convidado há pouco: saia e entre de novo com um código enviado ao endereço convidado. O convite é aceito nesse momento.',
    back: 'Voltar ao seu painel',
    signOut: 'Sair',
  },
  noAccess: {
    title: 'Sem acesso a esta seção',
    lead: 'Suas funções não incluem esta seção. Um proprietário pode alterar suas funções.',
    home: 'Ir para o console da equipe',
  },
  ui: {
    loading: 'Carregando…',
    retry: 'Tentar de novo',
    empty: 'Nada aqui ainda.',
    previous: 'Anterior',
    next: 'Próxima',
    newer: 'Mais recentes',
    older: 'Mais antigos',
    page: 'Página {{page}}',
    pageOf: 'Página {{page}} de {{pages}}',
    pagination: '{{label}}: páginas',
    cancel: 'Cancelar',
    confirm: 'Confirmar',
    close: 'Fechar',
    dismiss: 'Dispensar',
    notifications: 'Notificações',
    tableScroll: '{{label}} (rola para o lado)',
    failedSection: 'Não foi possível carregar esta seção: {{message}}',
    reload: 'Recarregar a página',
  },
  errors: {
    title: 'Algo deu errado',
    network: 'Não foi possível acessar o painel. Verifique sua conexão e tente de novo.',
    signedOut: 'Sua sessão terminou. Entre de novo.',
    forbidden: 'Você não tem permissão para fazer isso.',
    notFound: 'Não encontrado: pode ter sido removido nesse meio-tempo.',
    invalid: 'O pedido foi recusado: {{message}}',
    conflict: 'Foi alterado nesse meio-tempo: {{message}}',
    lastOwner: '{{email}} é o último proprietário ativo. Torne outro membro proprietário primeiro (ele precisa ter entrado), depois altere ou remova este.',
    alreadyMember: '{{email}} já é membro da equipe ({{status}}). Altere as funções dele em vez disso.',
    staffFull: 'A equipe comporta no máximo {{max}} membros. Remova um primeiro.',
    tooMany: 'Pedidos demais. Aguarde um momento e tente de novo.',
    unavailable: 'Um serviço de que o painel precisa está indisponível (nada foi alterado). Tente de novo em instantes.',
    unknown: 'Erro inesperado: {{message}}',
  },
};

/** A role's key in `roles.*` and `roleHelp.*` (i18next reads a dot in a key as nesting). */
export const ROLE_KEYS: Readonly<Record<StaffRole, keyof ShellMessages['roles']>> = {
  owner: 'owner',
  'support.manager': 'supportManager',
  'support.agent': 'supportAgent',
  'news.admin': 'newsAdmin',
  'quiz.admin': 'quizAdmin',
  'ai.edit': 'aiEdit',
  'platform.ops': 'platformOps',
};

/** A section's namespace: its words are `t('key', { ns })`, or `useTranslation(sectionNs('support'))`. */
export const sectionNs = (id: string): string => `staff-${id}`;

let registered = false;

/** Adds the shell's and every section's words to i18next (once; the console's chunk calls it when it loads). */
export function registerStaffMessages(sections: readonly StaffSection[]): void {
  if (registered) return;
  registered = true;
  i18n.addResourceBundle('en', STAFF_NS, en, true, true);
  i18n.addResourceBundle('pt', STAFF_NS, pt, true, true);
  for (const s of sections) {
    i18n.addResourceBundle('en', sectionNs(s.id), s.messages.en, true, true);
    i18n.addResourceBundle('pt', sectionNs(s.id), s.messages.pt, true, true);
  }
}

/** Date and time in the reader's language and time zone (the audit log, tickets…). */
export const formatDateTime = (iso: string | null | undefined, lng: string): string =>
  iso ? new Intl.DateTimeFormat(lng === 'pt' ? 'pt-BR' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)) : '—';
