/** WhatsApp (issue 15), the pure parts: the webhook's handshake, signature and payload; the commands; whose address is proven. */
import { isUnprovenWhatsAppUser, unverifiedEmailOf, verifiedEmailOf } from '../../models/users/email.rules';
import { signUpUserId } from '../../models/whatsapp/login-code.rules';
import { COMMAND_WORDS, COMMANDS, helpText, normalise, parseCommand } from '../../models/whatsapp/commands.rules';
import { decide, PAGE_SIZE, preferencesList, type Decision, type Flow, type Reader } from '../../models/whatsapp/conversation.rules';
import { readPayload, safeEqual, signatureOf, validSignature, verificationChallenge, WebhookPayload, type InboundContent } from '../../models/whatsapp/webhook.rules';

describe('verification handshake', () => {
  it('gives the challenge back for subscribe with the right token, and nothing otherwise', () => {
    const q = { 'hub.mode': 'subscribe', 'hub.verify_token': 'tok-123', 'hub.challenge': '1158201444' };
    expect(verificationChallenge(q, 'tok-123')).toBe('1158201444');
    expect(verificationChallenge({ ...q, 'hub.verify_token': 'tok-124' }, 'tok-123')).toBeUndefined();
    expect(verificationChallenge({ ...q, 'hub.verify_token': 'tok-1234' }, 'tok-123')).toBeUndefined();
    expect(verificationChallenge({ ...q, 'hub.mode': 'unsubscribe' }, 'tok-123')).toBeUndefined();
    expect(verificationChallenge({ ...q, 'hub.challenge': '' }, 'tok-123')).toBeUndefined();
    expect(verificationChallenge({ 'hub.mode': 'subscribe', 'hub.challenge': '1' }, 'tok-123')).toBeUndefined();
    expect(verificationChallenge({ ...q, 'hub.verify_token': ['tok-123', 'x'] }, 'tok-123')).toBeUndefined();
  });

  it('compares strings whole', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });
});

describe('signature', () => {
  const body = '{"object":"whatsapp_business_account","entry":[]}';
  it("accepts Meta's HMAC-SHA256 of the exact body, and refuses any change", () => {
    const header = signatureOf(body, 'app-secret');
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(validSignature(body, header, 'app-secret')).toBe(true);
    expect(validSignature(body, header.toUpperCase().replace('SHA256=', 'sha256='), 'app-secret')).toBe(true);
    expect(validSignature(`${body} `, header, 'app-secret')).toBe(false);
    expect(validSignature(body, header, 'other-secret')).toBe(false);
    expect(validSignature(body, undefined, 'app-secret')).toBe(false);
    expect(validSignature(body, header.replace('sha256=', 'sha1='), 'app-secret')).toBe(false);
    expect(validSignature(body, 'sha256=abc', 'app-secret')).toBe(false);
  });

  it('matches an HMAC computed independently', () => {
    // printf '%s' 'The quick brown fox jumps over the lazy dog' | openssl dgst -sha256 -hmac key
    expect(signatureOf('The quick brown fox jumps over the lazy dog', 'key')).toBe('sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8');
  });
});

describe('payload', () => {
  const payload = {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '5511999990000', phone_number_id: 'PNID' },
              contacts: [{ profile: { name: 'Ana' }, wa_id: '5511988887777' }],
              messages: [
                { from: '5511988887777', id: 'wamid.1', timestamp: '1795000000', type: 'text', text: { body: 'Oi' } },
                { from: '5511988887777', id: 'wamid.2', timestamp: '1795000001', type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: 'sector:FIN', title: 'Finanças' } } },
                { from: '5511988887777', id: 'wamid.3', timestamp: '1795000002', type: 'interactive', interactive: { type: 'list_reply', list_reply: { id: 'topic:IPO', title: 'IPO', description: 'x' } } },
                { from: '5511988887777', id: 'wamid.4', timestamp: '1795000003', type: 'image', image: { id: 'media-1', mime_type: 'image/jpeg' } },
                { from: '5511988887777', id: 'wamid.5', timestamp: '1795000004', type: 'button', button: { payload: 'stop', text: 'Parar' } },
                { from: '5511988887777', id: 'wamid.6', timestamp: '1795000005', type: 'interactive', interactive: { type: 'nfm_reply', nfm_reply: { name: 'flow', body: 'Sent', response_json: '{"sectors":["FIN"]}' } } },
              ],
            },
          },
          { field: 'messages', value: { statuses: [{ id: 'wamid.out1', status: 'failed', timestamp: '1795000010', recipient_id: '5511988887777', errors: [{ code: 131047, title: 'Re-engagement message' }] }] } },
          { field: 'account_update', value: { messages: [{ from: '5511000000000', id: 'ignored', timestamp: '1', type: 'text', text: { body: 'x' } }] } },
        ],
      },
    ],
  };

  it('reads messages (text, buttons, lists, flows, the rest) and statuses, in order', () => {
    const { messages, statuses } = readPayload(WebhookPayload.parse(payload));
    expect(messages.map((m) => m.content)).toEqual([
      { kind: 'text', text: 'Oi' },
      { kind: 'choice', id: 'sector:FIN', title: 'Finanças' },
      { kind: 'choice', id: 'topic:IPO', title: 'IPO' },
      { kind: 'unsupported', type: 'image' },
      { kind: 'choice', id: 'stop', title: 'Parar' },
      { kind: 'flow', response: { sectors: ['FIN'] } },
    ]);
    expect(messages[0]).toEqual({ id: 'wamid.1', phone: '5511988887777', profileName: 'Ana', sentAt: new Date(1_795_000_000_000), phoneNumberId: 'PNID', content: { kind: 'text', text: 'Oi' } });
    expect(statuses).toEqual([{ messageId: 'wamid.out1', status: 'failed', at: new Date(1_795_000_010_000), recipient: '5511988887777', error: { code: 131047, title: 'Re-engagement message' } }]);
  });

  it('refuses what is not a WhatsApp Business Account payload', () => {
    expect(WebhookPayload.safeParse({ object: 'page', entry: [] }).success).toBe(false);
    expect(WebhookPayload.safeParse({ ...payload, entry: [{ id: 'x', changes: [{ field: 'messages', value: { messages: [{ from: '+55 11', id: 'w', timestamp: '1', type: 'text' }] } }] }] }).success).toBe(false);
  });
});

describe('commands', () => {
  it('reads commands whatever their case, accents, punctuation and spacing', () => {
    expect(parseCommand('Últimas Notícias!')).toBe('latest');
    expect(parseCommand('  ULTIMAS   noticias ')).toBe('latest');
    expect(parseCommand('PLANTÃO')).toBe('breaking');
    expect(parseCommand('Minhas preferências')).toBe('preferences');
    expect(parseCommand('parar')).toBe('stop');
    expect(parseCommand('Retomar alertas.')).toBe('resume');
    expect(parseCommand('minha CONTA')).toBe('account');
    expect(parseCommand('Olá')).toBe('help');
    expect(parseCommand('Já tenho conta')).toBe('login');
    expect(parseCommand('quero saber do dólar')).toBeUndefined();
    expect(normalise('  Ações,   da Petrobrás? ')).toBe('acoes da petrobras');
  });

  it('gives each word to one command only', () => {
    const words = COMMANDS.flatMap((c) => COMMAND_WORDS[c]);
    expect(new Set(words).size).toBe(words.length);
    for (const c of COMMANDS) for (const w of COMMAND_WORDS[c]) expect({ w, c: parseCommand(w) }).toEqual({ w, c });
  });
});

describe('conversation decisions', () => {
  const guest: Reader = { userId: null, name: null };
  const member: Reader = { userId: 'usr-1', name: 'Ana' };
  const say = (t: string): InboundContent => ({ kind: 'text', text: t });
  const choose = (id: string): InboundContent => ({ kind: 'choice', id, title: id });
  const replies = (d: Decision) => d.effects.filter((e) => e.kind === 'reply').map((e) => (e.kind === 'reply' && 'text' in e.message ? e.message.text : ''));

  it('signs up by name and e-mail, asking again for what it cannot read', () => {
    let d = decide(null, guest, say('Cadastro'));
    expect(d.flow).toEqual({ kind: 'signup', step: 'name' });
    d = decide(d.flow, guest, say('1234'));
    expect(d.flow).toEqual({ kind: 'signup', step: 'name' });
    d = decide(d.flow, guest, say('  Ana Júlia  '));
    expect(d.flow).toEqual({ kind: 'signup', step: 'email', name: 'Ana Júlia' });
    d = decide(d.flow, guest, say('ana@'));
    expect(d.flow).toEqual({ kind: 'signup', step: 'email', name: 'Ana Júlia' });
    expect(replies(d)[0]).toMatch(/não parece válido/);
    d = decide(d.flow, guest, say(' Ana.Julia@Example.com '));
    expect(d).toEqual({ flow: null, effects: [{ kind: 'signUp', name: 'Ana Júlia', email: 'ana.julia@example.com' }] });
  });

  it('logs in by e-mail; a linked phone is told it has an account', () => {
    let d = decide(null, guest, say('ENTRAR'));
    expect(d.flow).toEqual({ kind: 'login', step: 'email' });
    d = decide(d.flow, guest, say('ana@example.com'));
    expect(d).toEqual({ flow: null, effects: [{ kind: 'requestLoginCode', email: 'ana@example.com' }] });
    expect(replies(decide(null, member, say('entrar')))[0]).toMatch(/já está vinculado/);
    expect(replies(decide(null, member, say('cadastro')))[0]).toMatch(/já está vinculado/);
  });

  it('lets a phone linked to an account nobody proved log in to a proven one (issue 35), and nothing else changes', () => {
    const provisional: Reader = { userId: 'usr_wa_1', name: 'Ana', provisional: true };
    let d = decide(null, provisional, say('entrar'));
    expect(d.flow).toEqual({ kind: 'login', step: 'email' });
    d = decide(d.flow, provisional, say('Ana@Example.com'));
    expect(d).toEqual({ flow: null, effects: [{ kind: 'requestLoginCode', email: 'ana@example.com' }] });
    expect(replies(decide(null, provisional, say('cadastro')))[0]).toMatch(/já está vinculado/);
    expect(decide(null, provisional, say('preferências')).effects).toEqual([{ kind: 'startPreferences' }]);
    // A reader recorded before `provisional` was read (replayed histories) decides as it did.
    expect(decide(null, { userId: 'usr_wa_1', name: 'Ana' }, say('entrar'))).toEqual(decide(null, member, say('entrar')));
  });

  it('chooses sectors and topics from lists, page by page, and saves them', () => {
    expect(decide(null, member, say('preferências')).effects).toEqual([{ kind: 'startPreferences' }]);
    expect(replies(decide(null, guest, say('preferencias')))[0]).toMatch(/precisa de uma conta/);
    let flow: Flow | null = { kind: 'preferences', step: 'sector', sectors: ['FIN'], topics: [], page: 0 };
    const first = preferencesList(flow);
    expect(first.type === 'list' && first.rows.length).toBe(PAGE_SIZE + 2);
    expect(first.type === 'list' && first.rows[0]).toEqual({ id: 'pref:toggle:sector:FIN', title: '✅ Finanças' });
    let d = decide(flow, member, choose('pref:toggle:sector:TEC'));
    d = decide(d.flow, member, choose('pref:toggle:sector:FIN')); // chosen again: taken out
    d = decide(d.flow, member, choose('pref:page:sector:2'));
    const last = d.effects[0]!.kind === 'reply' ? d.effects[0]!.message : undefined;
    expect(last?.type === 'list' && last.rows.map((r) => r.id)).toEqual(['pref:toggle:sector:CIE', 'pref:toggle:sector:DEF', 'pref:toggle:sector:CUL', 'pref:toggle:sector:EDU', 'pref:toggle:sector:AMB', 'pref:toggle:sector:SOC', 'pref:toggle:sector:TUR', 'pref:page:sector:0', 'pref:next']);
    d = decide(d.flow, member, choose('pref:toggle:sector:TUR'));
    d = decide(d.flow, member, choose('pref:toggle:topic:IPO')); // a row of the other list: ignored
    d = decide(d.flow, member, choose('pref:next'));
    d = decide(d.flow, member, choose('pref:toggle:topic:IPO'));
    d = decide(d.flow, member, say('oque?')); // free text during the list: the list again
    expect(d.effects).toHaveLength(2);
    flow = d.flow;
    d = decide(flow, member, choose('pref:save'));
    expect(d).toEqual({ flow: null, effects: [{ kind: 'savePreferences', sectors: ['TEC', 'TUR'], topics: ['IPO'] }] });
  });

  it('a command ends a flow; stop and resume need an account; anything else gets help', () => {
    const d = decide({ kind: 'signup', step: 'name' }, guest, say('Notícias'));
    expect(d).toEqual({ flow: null, effects: [{ kind: 'latest' }] });
    expect(decide(null, member, say('Parar')).effects).toEqual([{ kind: 'setAlerts', on: false }]);
    expect(decide(null, member, say('retomar')).effects).toEqual([{ kind: 'setAlerts', on: true }]);
    expect(decide(null, member, choose('cmd:stop')).effects).toEqual([{ kind: 'setAlerts', on: false }]);
    expect(replies(decide(null, guest, say('parar')))[0]).toMatch(/precisa de uma conta/);
    expect(replies(decide(null, guest, say('bom dia')))[0]).toBe(helpText());
    expect(replies(decide(null, guest, { kind: 'unsupported', type: 'image' }))[0]).toMatch(/só leio texto/);
  });

  it('reads WhatsApp Flow answers for preferences and sign-up', () => {
    expect(decide(null, member, { kind: 'flow', response: { sectors: ['FIN', 'FIN', 'TEC'], topics: ['IPO'] } })).toEqual({ flow: null, effects: [{ kind: 'savePreferences', sectors: ['FIN', 'TEC'], topics: ['IPO'] }] });
    expect(decide(null, guest, { kind: 'flow', response: { name: 'Bruno', email: 'B@Example.com' } })).toEqual({ flow: null, effects: [{ kind: 'signUp', name: 'Bruno', email: 'b@example.com' }] });
    expect(decide(null, member, { kind: 'flow', response: { sectors: ['XXX'] } }).effects[0]!.kind).toBe('reply');
  });
});

describe('whose address is proven (issue 35)', () => {
  const wa = signUpUserId('5511999990000', 'ana@example.com');
  const at = new Date('2031-01-01T00:00:00Z');

  it('never takes an address typed on WhatsApp for proven, stored apart or (before the rule) as email', () => {
    expect(wa).toMatch(/^usr_wa_/);
    const typed = { _id: wa, unverifiedEmail: 'ana@example.com' };
    expect([isUnprovenWhatsAppUser(typed), verifiedEmailOf(typed), unverifiedEmailOf(typed)]).toEqual([true, undefined, 'ana@example.com']);
    const legacy = { _id: wa, email: 'ana@example.com' };
    expect([isUnprovenWhatsAppUser(legacy), verifiedEmailOf(legacy), unverifiedEmailOf(legacy)]).toEqual([true, undefined, 'ana@example.com']);
  });

  it('takes an address for proven once a mailed code came back, or when a token carried it', () => {
    const proven = { _id: wa, email: 'ana@example.com', emailVerifiedAt: at };
    expect([isUnprovenWhatsAppUser(proven), verifiedEmailOf(proven), unverifiedEmailOf(proven)]).toEqual([false, 'ana@example.com', undefined]);
    const dashboard = { _id: 'usr_em_1', email: 'bia@example.com', emailVerifiedAt: at };
    expect(verifiedEmailOf(dashboard)).toBe('bia@example.com');
    const fromToken = { _id: 'idp|42', email: 'caio@example.com' };
    expect([isUnprovenWhatsAppUser(fromToken), verifiedEmailOf(fromToken)]).toEqual([false, 'caio@example.com']);
    expect([verifiedEmailOf({ _id: 'idp|43' }), unverifiedEmailOf({ _id: 'idp|43' })]).toEqual([undefined, undefined]);
  });
});
