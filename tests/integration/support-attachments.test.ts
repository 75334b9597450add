/** Attachments streamed to the real MinIO, typed by content, with safe downloads. */
import request from 'supertest';
import { attachmentModel } from '../../models/support/support.model';
import { CLOSED_PORT } from '../helpers/service';
import { agentToken, buildTicket, client, readerToken, startSupportService, type SupportService } from '../helpers/support';

// A real 1×1 PNG, a PDF header, a Windows executable header.
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000c4d5cd330000000d4944415478da63f8cfc0f01f0005000201a2c4e1a50000000049454e44ae426082', 'hex');
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n<< /Type /Catalog >>\nendobj\n'), Buffer.alloc(200, 0x20), Buffer.from('\n%%EOF\n')]);
const EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(300, 0x90)]);

let svc: SupportService;
let agentAuth: string;
beforeAll(async () => {
  svc = await startSupportService();
  agentAuth = `Bearer ${await agentToken('agent-files')}`;
});
afterAll(() => svc?.close());

async function newTicket() {
  const res = await client(svc).post('/support', buildTicket()).expect(201);
  return res.body.data as { id: number; email: string };
}

const upload = (s: SupportService, id: number, auth: string) => request(s.callback).post(`/support/${id}/anexos`).set('Authorization', auth).set('X-Forwarded-For', `10.9.${id % 250}.${Math.floor(Math.random() * 250) + 1}`);

async function objectsUnder(prefix: string): Promise<string[]> {
  const names: string[] = [];
  for await (const o of svc.deps.storage.client.listObjectsV2(svc.deps.storage.bucket, prefix, true)) names.push((o as { name: string }).name);
  return names;
}

describe('POST /support/:id/anexos', () => {
  it('stores the file in MinIO under ticket id, date and a unique prefix, typed by its content', async () => {
    const t = await newTicket();
    const res = await upload(svc, t.id, agentAuth).attach('arquivo', PNG, { filename: 'foto da tela.png', contentType: 'image/jpeg' }).expect(201);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body).toMatchObject({
      success: true,
      message: 'Anexo enviado',
      data: {
        id: expect.any(Number),
        supportId: t.id,
        mensagemId: null,
        nomeArquivo: 'foto da tela.png',
        caminhoArquivo: expect.stringMatching(new RegExp(`^tickets/${t.id}/${today}/[0-9a-f-]{36}-foto_da_tela\\.png$`)),
        tipoArquivo: 'image/png',
        tamanhoArquivo: PNG.length,
      },
    });
    const stat = await svc.deps.storage.client.statObject(svc.deps.storage.bucket, res.body.data.caminhoArquivo);
    expect(stat.size).toBe(PNG.length);
    expect(stat.metaData['content-type']).toBe('image/png');
    const detail = await request(svc.callback).get(`/support/${t.id}`).set('Authorization', agentAuth).expect(200);
    expect(detail.body.data.anexos).toEqual([expect.objectContaining({ id: res.body.data.id, nomeArquivo: 'foto da tela.png', tipoArquivo: 'image/png' })]);
  });

  it('accepts PDFs and CSV text, and links an attachment to a message of the ticket', async () => {
    const t = await newTicket();
    const msg = await request(svc.callback).post(`/support/${t.id}/mensagens`).set('Authorization', agentAuth).send({ conteudo: 'segue o boleto' }).expect(201);
    const pdf = await upload(svc, t.id, agentAuth).field('mensagemId', String(msg.body.data.id)).attach('arquivo', PDF, { filename: 'boleto.pdf', contentType: 'application/pdf' }).expect(201);
    expect(pdf.body.data).toMatchObject({ tipoArquivo: 'application/pdf', mensagemId: msg.body.data.id });
    const csv = await upload(svc, t.id, agentAuth).attach('arquivo', Buffer.from('nome,email\nAna,ana@example.com\n'), { filename: 'lista.csv', contentType: 'text/csv' }).expect(201);
    expect(csv.body.data.tipoArquivo).toBe('text/csv');
    const list = await request(svc.callback).get(`/support/${t.id}/anexos`).set('Authorization', agentAuth).expect(200);
    expect(list.body.data).toHaveLength(2);
  });

  it.each([
    ['a disallowed type disguised as a PDF', (r: request.Test) => r.attach('arquivo', EXE, { filename: 'fatura.pdf', contentType: 'application/pdf' }), /File type not allowed/],
    ['a missing file', (r: request.Test) => r.field('mensagemId', '1'), /The file is missing/],
    ['a field the operation does not have (found by fuzzing)', (r: request.Test) => r.field('__proto__', '{}').attach('arquivo', PNG, { filename: 'a.png' }), /unknown field "__proto__"/],
    ['the file in another field', (r: request.Test) => r.attach('anexo', PNG, { filename: 'a.png' }), /unknown field "anexo"/],
    ['an empty file', (r: request.Test) => r.attach('arquivo', Buffer.alloc(0), { filename: 'vazio.txt', contentType: 'text/plain' }), /missing|empty/],
    ['a file over 10 MB', (r: request.Test) => r.attach('arquivo', Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]), { filename: 'grande.png', contentType: 'image/png' }), /larger than 10 MB/],
  ])('rejects %s with 400 and stores nothing', async (_label, build, message) => {
    const t = await newTicket();
    const res = await build(upload(svc, t.id, agentAuth)).expect(400);
    expect(res.body).toMatchObject({ success: false, message: expect.stringMatching(message), error: 'VALIDATION_FAILED' });
    expect(await attachmentModel(svc.deps.mongo.conn).countDocuments({ supportId: t.id })).toBe(0);
    expect(await objectsUnder(`tickets/${t.id}/`)).toEqual([]);
  });

  it('rejects a message of another ticket and removes the uploaded object', async () => {
    const [t, other] = [await newTicket(), await newTicket()];
    const msg = await request(svc.callback).post(`/support/${other.id}/mensagens`).set('Authorization', agentAuth).send({ conteudo: 'x' }).expect(201);
    const res = await upload(svc, t.id, agentAuth).field('mensagemId', String(msg.body.data.id)).attach('arquivo', PNG, { filename: 'a.png' }).expect(400);
    expect(res.body.message).toBe(`Message ${msg.body.data.id} does not belong to ticket ${t.id}`);
    expect(await objectsUnder(`tickets/${t.id}/`)).toEqual([]);
  });

  it('answers 503 when MinIO is unavailable and leaves no record', async () => {
    const down = await startSupportService({ MINIO_ENDPOINT: `http://127.0.0.1:${CLOSED_PORT}` });
    try {
      const t = await newTicket();
      const res = await upload(down, t.id, agentAuth).attach('arquivo', PNG, { filename: 'a.png' }).expect(503);
      expect(res.body).toEqual({ success: false, message: 'minio is unavailable, please retry later', error: 'DEPENDENCY_UNAVAILABLE', details: { dependency: 'minio' } });
      expect(await attachmentModel(svc.deps.mongo.conn).countDocuments({ supportId: t.id })).toBe(0);
    } finally {
      await down.close();
    }
  });

  it('lets requesters attach to their own tickets only', async () => {
    const [mine, other] = [await newTicket(), await newTicket()];
    const reader = `Bearer ${await readerToken(mine.email)}`;
    await upload(svc, mine.id, reader).attach('arquivo', PNG, { filename: 'a.png' }).expect(201);
    await upload(svc, other.id, reader).attach('arquivo', PNG, { filename: 'a.png' }).expect(404);
  });
});

describe('download and delete', () => {
  it('streams the file back with its stored type and a safe Content-Disposition', async () => {
    const t = await newTicket();
    const name = 'relatório "final" ção v2.pdf';
    const up = await upload(svc, t.id, agentAuth).attach('arquivo', PDF, { filename: name, contentType: 'application/pdf' }).expect(201);
    const res = await request(svc.callback)
      .get(`/support/anexos/${up.body.data.id}/download`)
      .set('Authorization', agentAuth)
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(Buffer.compare(res.body as Buffer, PDF)).toBe(0);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const disposition = String(res.headers['content-disposition']);
    // An ASCII fallback with quotes escaped, then the exact name percent-encoded (RFC 6266).
    expect(disposition).toMatch(/^attachment; filename="(?:[^"\\]|\\.)*"; filename\*=UTF-8''[A-Za-z0-9%._~!'()*-]+$/);
    expect(decodeURIComponent(disposition.split("UTF-8''")[1]!)).toBe(name);
  });

  it('answers an image or a PDF to be shown (inline=true: framable by the same site only, an image sandboxed), and anything else as an attachment', async () => {
    const t = await newTicket();
    const png = await upload(svc, t.id, agentAuth).attach('arquivo', PNG, { filename: 'tela.png' }).expect(201);
    const pdf = await upload(svc, t.id, agentAuth).attach('arquivo', PDF, { filename: 'boleto.pdf' }).expect(201);
    const txt = await upload(svc, t.id, agentAuth).attach('arquivo', Buffer.from('<script>alert(1)</script>'), { filename: 'nota.txt', contentType: 'text/plain' }).expect(201);
    const get = (id: number, q = '?inline=true') => request(svc.callback).get(`/support/anexos/${id}/download${q}`).set('Authorization', agentAuth).buffer(true).parse((r, done) => r.on('data', () => undefined).on('end', () => done(null, null)));
    const image = await get(png.body.data.id).expect(200);
    expect(image.headers['content-disposition']).toMatch(/^inline; filename="tela.png"/);
    expect(image.headers['content-security-policy']).toBe("default-src 'none'; img-src 'self'; frame-ancestors 'self'; sandbox");
    expect(image.headers['x-frame-options']).toBe('SAMEORIGIN');
    const doc = await get(pdf.body.data.id).expect(200);
    expect(doc.headers['content-disposition']).toMatch(/^inline; /);
    expect(doc.headers['content-security-policy']).toBe("default-src 'none'; img-src 'self'; frame-ancestors 'self'");
    // Text could be read as markup by a browser: never shown, always saved.
    const text = await get(txt.body.data.id).expect(200);
    expect(text.headers['content-disposition']).toMatch(/^attachment; /);
    expect(text.headers['x-frame-options']).toBeUndefined();
    expect((await get(png.body.data.id, '').expect(200)).headers['content-disposition']).toMatch(/^attachment; /);
    await get(png.body.data.id, '?inline=yes').expect(400);
  });

  it('deletes the object and the record; others cannot download', async () => {
    const t = await newTicket();
    const up = await upload(svc, t.id, agentAuth).attach('arquivo', PNG, { filename: 'a.png' }).expect(201);
    const stranger = `Bearer ${await readerToken('someone-else@example.com')}`;
    await request(svc.callback).get(`/support/anexos/${up.body.data.id}/download`).set('Authorization', stranger).expect(404);
    await request(svc.callback).delete(`/support/anexos/${up.body.data.id}`).set('Authorization', agentAuth).expect(200);
    expect(await objectsUnder(`tickets/${t.id}/`)).toEqual([]);
    await request(svc.callback).get(`/support/anexos/${up.body.data.id}/download`).set('Authorization', agentAuth).expect(404);
    await request(svc.callback).delete(`/support/anexos/${up.body.data.id}`).set('Authorization', agentAuth).expect(404);
  });

  it('a record whose file is already gone (a deletion half-way: the object first, then the record) downloads as 404, not 500', async () => {
    // The fuzzer met this: a download between a deletion's two steps found the record, not the object.
    const t = await newTicket();
    const up = await upload(svc, t.id, agentAuth).attach('arquivo', PNG, { filename: 'a.png' }).expect(201);
    const [key] = await objectsUnder(`tickets/${t.id}/`);
    await svc.deps.storage.client.removeObject(svc.deps.storage.bucket, key!);
    const res = await request(svc.callback).get(`/support/anexos/${up.body.data.id}/download`).set('Authorization', agentAuth).expect(404);
    expect(res.body).toMatchObject({ success: false, error: 'NOT_FOUND' });
    // The deletion still finishes.
    await request(svc.callback).delete(`/support/anexos/${up.body.data.id}`).set('Authorization', agentAuth).expect(200);
  });
});
