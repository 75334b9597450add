/**
 * The text commands a reader can send on WhatsApp, in Portuguese; read without regard to case,
 * accents, punctuation or extra spaces ("Últimas notícias!", "ULTIMAS NOTICIAS" and "ultimas
 * noticias" are one command). Anything else is answered with help. Pure.
 */
import { fold } from '../news/text.rules';

export const COMMANDS = ['help', 'latest', 'breaking', 'preferences', 'stop', 'resume', 'account', 'signup', 'login', 'cancel'] as const;
export type Command = (typeof COMMANDS)[number];

/** The words of each command, folded (lower case, no accents). The first is the one help shows. */
export const COMMAND_WORDS: Record<Command, readonly string[]> = {
  help: ['ajuda', 'menu', 'oi', 'ola', 'comandos', 'help', 'inicio'],
  latest: ['noticias', 'ultimas', 'ultimas noticias', 'novidades', 'feed', 'meu feed'],
  breaking: ['urgente', 'plantao', 'ultima hora', 'noticias urgentes', 'breaking'],
  preferences: ['preferencias', 'minhas preferencias', 'setores', 'temas', 'configurar'],
  stop: ['parar', 'pare', 'parar alertas', 'sair', 'cancelar alertas', 'stop'],
  resume: ['voltar', 'retomar', 'retomar alertas', 'ativar alertas', 'reativar', 'start'],
  account: ['conta', 'minha conta', 'perfil', 'meu perfil'],
  signup: ['cadastro', 'cadastrar', 'criar conta', 'assinar', 'inscrever'],
  login: ['entrar', 'login', 'acessar', 'vincular', 'ja tenho conta'],
  cancel: ['cancelar', 'desistir', 'voltar ao menu'],
};

/** Folded, punctuation turned into spaces, spaces collapsed: "  Últimas   notícias! " → "ultimas noticias". */
export function normalise(text: string): string {
  return fold(text)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const BY_WORDS = new Map<string, Command>(COMMANDS.flatMap((c) => COMMAND_WORDS[c].map((w) => [w, c] as const)));

/** The command a text is, or undefined (then the reader gets help). */
export function parseCommand(text: string): Command | undefined {
  return BY_WORDS.get(normalise(text));
}

/** The help text: one line per command, with the word to send. */
export function helpText(): string {
  return [
    'Olá! Envie uma destas palavras:',
    '• *noticias* — as últimas do seu feed',
    '• *urgente* — as notícias urgentes',
    '• *preferencias* — escolher setores e temas',
    '• *parar* / *voltar* — pausar ou retomar os alertas',
    '• *conta* — sua conta',
    '• *cadastro* — criar uma conta',
    '• *entrar* — vincular este número a uma conta que você já tem',
  ].join('\n');
}
