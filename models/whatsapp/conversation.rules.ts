/**
 * A WhatsApp conversation's decisions (issue 15), pure: given the flow a phone is in, what the
 * workflow knows of its reader and what the reader sent, the next flow and the effects to carry
 * out (replies, and the steps that need the database or the news: the workflow runs those as
 * activities). Flows: sign-up (name, then e-mail), log-in (e-mail; a code is sent to the phone and
 * confirmed in the account), preferences (sectors, then topics, from lists). A command always ends
 * the flow in progress and runs.
 */
import { z } from 'zod';
import { SECTORS, TOPICS, type Sector, type Topic } from '../news/article.rules';
import type { OutboundMessage } from '../infra/whatsapp';
import { helpText, parseCommand, type Command } from './commands.rules';
import type { InboundContent } from './webhook.rules';

export const SECTOR_LABELS: Record<Sector, string> = {
  FIN: 'Finanças', TEC: 'Tecnologia', SAU: 'Saúde', ENE: 'Energia', MAT: 'Materiais', IND: 'Indústria', CON: 'Consumo', IMO: 'Imobiliário',
  AGR: 'Agronegócio', TRA: 'Transportes', COM: 'Comunicações', SER: 'Serviços', GOV: 'Governo', ESP: 'Esportes', CRY: 'Cripto', FIP: 'Finanças públicas',
  CIE: 'Ciência', DEF: 'Defesa', CUL: 'Cultura', EDU: 'Educação', AMB: 'Meio ambiente', SOC: 'Sociedade', TUR: 'Turismo',
};
export const TOPIC_LABELS: Record<Topic, string> = {
  'M&A': 'Fusões e aquisições', IPO: 'IPOs', REG: 'Regulação', DIV: 'Dividendos', EARN: 'Resultados', MACRO: 'Macroeconomia', RATES: 'Juros', DEBT: 'Dívida',
  BUYBACK: 'Recompras', GUIDANCE: 'Projeções', LEGAL: 'Jurídico', ESG: 'ESG', LABOR: 'Trabalho', CONTRACT: 'Contratos', PRODUCT: 'Produtos', MGMT: 'Gestão',
};

/** Options shown per list page (WhatsApp allows 10 rows: these, "more" and "done"). */
export const PAGE_SIZE = 8;

export type PreferenceKind = 'sector' | 'topic';

export type Flow =
  | { kind: 'signup'; step: 'name' }
  | { kind: 'signup'; step: 'email'; name: string }
  | { kind: 'login'; step: 'email' }
  | { kind: 'preferences'; step: PreferenceKind; sectors: Sector[]; topics: Topic[]; page: number };

/** What the workflow knows of the reader when a message arrives. */
export interface Reader {
  /** The account the phone is linked to, if any. */
  userId: string | null;
  name: string | null;
  /**
   * The linked account is a WhatsApp sign-up whose address nobody proved: the phone may still log
   * in to (move to) an account whose address is proven (issue 35). Absent in the histories of
   * conversations recorded before it was read: taken as false, as it then was.
   */
  provisional?: boolean;
}

export type Effect =
  | { kind: 'reply'; message: OutboundMessage }
  | { kind: 'latest' }
  | { kind: 'breaking' }
  | { kind: 'account' }
  | { kind: 'setAlerts'; on: boolean }
  | { kind: 'signUp'; name: string; email: string }
  | { kind: 'requestLoginCode'; email: string }
  /** Load the reader's preferences and open the preferences flow on them. */
  | { kind: 'startPreferences' }
  | { kind: 'savePreferences'; sectors: Sector[]; topics: Topic[] };

export interface Decision {
  flow: Flow | null;
  effects: Effect[];
}

const text = (t: string): Effect => ({ kind: 'reply', message: { type: 'text', text: t } });
const EMAIL = z.email().max(254);
const NAME = z.string().trim().min(2).max(80).regex(/^[\p{L}][\p{L}\p{M} .'-]*$/u);
const NEEDS_ACCOUNT = 'Para isso, este número precisa de uma conta: envie *cadastro* para criar uma ou *entrar* se você já tem.';

/** The list of one page of sectors or topics, the chosen ones marked. */
export function preferencesList(flow: Extract<Flow, { kind: 'preferences' }>): OutboundMessage {
  const all: readonly string[] = flow.step === 'sector' ? SECTORS : TOPICS;
  const labels: Record<string, string> = flow.step === 'sector' ? SECTOR_LABELS : TOPIC_LABELS;
  const chosen: readonly string[] = flow.step === 'sector' ? flow.sectors : flow.topics;
  const pages = Math.ceil(all.length / PAGE_SIZE);
  const page = Math.min(Math.max(flow.page, 0), pages - 1);
  const rows = all.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).map((code) => ({
    id: `pref:toggle:${flow.step}:${code}`,
    title: `${chosen.includes(code) ? '✅ ' : ''}${labels[code]}`.slice(0, 24),
  }));
  rows.push({ id: `pref:page:${flow.step}:${(page + 1) % pages}`, title: page + 1 < pages ? 'Mais opções ›' : '‹ Início da lista' });
  rows.push(flow.step === 'sector' ? { id: 'pref:next', title: 'Próximo: temas' } : { id: 'pref:save', title: 'Salvar preferências' });
  const names = chosen.map((c) => labels[c]).join(', ') || 'nenhum';
  const what = flow.step === 'sector' ? 'setores' : 'temas';
  return {
    type: 'list',
    text: `Escolha os ${what} que você quer acompanhar (toque de novo para tirar). Escolhidos: ${names}. Página ${page + 1} de ${pages}.`,
    button: flow.step === 'sector' ? 'Ver setores' : 'Ver temas',
    rows,
  };
}

function runCommand(command: Command, reader: Reader): Decision {
  const linked = reader.userId !== null;
  switch (command) {
    case 'help':
      return { flow: null, effects: [text(helpText())] };
    case 'cancel':
      return { flow: null, effects: [text('Tudo bem, cancelado. Envie *ajuda* para ver o que posso fazer.')] };
    case 'latest':
      return { flow: null, effects: [{ kind: 'latest' }] };
    case 'breaking':
      return { flow: null, effects: [{ kind: 'breaking' }] };
    case 'account':
      return { flow: null, effects: [{ kind: 'account' }] };
    case 'stop':
    case 'resume':
      return { flow: null, effects: [linked ? { kind: 'setAlerts', on: command === 'resume' } : text(NEEDS_ACCOUNT)] };
    case 'preferences':
      return { flow: null, effects: [linked ? { kind: 'startPreferences' } : text(NEEDS_ACCOUNT)] };
    case 'signup':
      if (linked) return { flow: null, effects: [text('Este número já está vinculado a uma conta. Envie *conta* para ver qual.')] };
      return { flow: { kind: 'signup', step: 'name' }, effects: [text('Vamos criar sua conta. Qual é o seu nome?')] };
    case 'login':
      if (linked && !reader.provisional) return { flow: null, effects: [text('Este número já está vinculado a uma conta. Envie *conta* para ver qual.')] };
      return { flow: { kind: 'login', step: 'email' }, effects: [text('Qual é o e-mail da sua conta?')] };
  }
}

function toggle<T extends string>(list: readonly T[], code: T): T[] {
  return list.includes(code) ? list.filter((c) => c !== code) : [...list, code];
}

function onChoice(flow: Flow | null, reader: Reader, id: string): Decision {
  const command = /^cmd:(\w+)$/.exec(id)?.[1];
  if (command) {
    const known = parseCommandId(command);
    if (known) return runCommand(known, reader);
  }
  if (flow?.kind !== 'preferences') return { flow, effects: [text(helpText())] };
  const toggled = /^pref:toggle:(sector|topic):(.+)$/.exec(id);
  if (toggled && toggled[1] === flow.step) {
    const code = toggled[2]!;
    const next =
      flow.step === 'sector' && (SECTORS as readonly string[]).includes(code)
        ? { ...flow, sectors: toggle(flow.sectors, code as Sector) }
        : flow.step === 'topic' && (TOPICS as readonly string[]).includes(code)
          ? { ...flow, topics: toggle(flow.topics, code as Topic) }
          : flow;
    return { flow: next, effects: [{ kind: 'reply', message: preferencesList(next) }] };
  }
  const paged = /^pref:page:(sector|topic):(\d+)$/.exec(id);
  if (paged && paged[1] === flow.step) {
    const next = { ...flow, page: Number(paged[2]) };
    return { flow: next, effects: [{ kind: 'reply', message: preferencesList(next) }] };
  }
  if (id === 'pref:next' && flow.step === 'sector') {
    const next = { ...flow, step: 'topic' as const, page: 0 };
    return { flow: next, effects: [{ kind: 'reply', message: preferencesList(next) }] };
  }
  if (id === 'pref:save' && flow.step === 'topic') return { flow: null, effects: [{ kind: 'savePreferences', sectors: flow.sectors, topics: flow.topics }] };
  // A row of an older list: show the current one again.
  return { flow, effects: [{ kind: 'reply', message: preferencesList(flow) }] };
}

/** `cmd:<command>` ids of buttons and template quick replies name a command by its own name. */
function parseCommandId(name: string): Command | undefined {
  const commands: readonly string[] = ['help', 'latest', 'breaking', 'preferences', 'stop', 'resume', 'account', 'signup', 'login', 'cancel'];
  return commands.includes(name) ? (name as Command) : undefined;
}

function onText(flow: Flow | null, reader: Reader, body: string): Decision {
  const command = parseCommand(body);
  if (command) return runCommand(command, reader);
  if (!flow) return { flow: null, effects: [text(helpText())] };
  switch (flow.kind) {
    case 'signup': {
      if (flow.step === 'name') {
        const name = NAME.safeParse(body);
        if (!name.success) return { flow, effects: [text('Não entendi o nome. Escreva seu nome (só letras), ou *cancelar*.')] };
        return { flow: { kind: 'signup', step: 'email', name: name.data }, effects: [text(`Prazer, ${name.data}! Agora, qual é o seu e-mail?`)] };
      }
      const email = EMAIL.safeParse(body.trim().toLowerCase());
      if (!email.success) return { flow, effects: [text('Esse e-mail não parece válido. Escreva-o de novo (como nome@exemplo.com), ou *cancelar*.')] };
      return { flow: null, effects: [{ kind: 'signUp', name: flow.name, email: email.data }] };
    }
    case 'login': {
      const email = EMAIL.safeParse(body.trim().toLowerCase());
      if (!email.success) return { flow, effects: [text('Esse e-mail não parece válido. Escreva-o de novo (como nome@exemplo.com), ou *cancelar*.')] };
      return { flow: null, effects: [{ kind: 'requestLoginCode', email: email.data }] };
    }
    case 'preferences':
      return { flow, effects: [text('Escolha na lista abaixo, ou envie *cancelar*.'), { kind: 'reply', message: preferencesList(flow) }] };
  }
}

/** Preferences from a WhatsApp Flow's answers (`{sectors: [...], topics: [...]}`), when they are that. */
const FlowPreferences = z.object({ sectors: z.array(z.enum(SECTORS)).max(SECTORS.length), topics: z.array(z.enum(TOPICS)).max(TOPICS.length).default([]) });
const FlowSignUp = z.object({ name: NAME, email: EMAIL });

export function decide(flow: Flow | null, reader: Reader, content: InboundContent): Decision {
  switch (content.kind) {
    case 'text':
      return onText(flow, reader, content.text);
    case 'choice':
      return onChoice(flow, reader, content.id);
    case 'flow': {
      const prefs = FlowPreferences.safeParse(content.response);
      if (prefs.success) return { flow: null, effects: [reader.userId ? { kind: 'savePreferences', sectors: [...new Set(prefs.data.sectors)], topics: [...new Set(prefs.data.topics)] } : text(NEEDS_ACCOUNT)] };
      const signUp = FlowSignUp.safeParse(content.response);
      if (signUp.success && !reader.userId) return { flow: null, effects: [{ kind: 'signUp', name: signUp.data.name, email: signUp.data.email.toLowerCase() }] };
      return { flow, effects: [text(helpText())] };
    }
    case 'unsupported':
      return { flow, effects: [text(`Por aqui eu só leio texto. ${helpText()}`)] };
  }
}
