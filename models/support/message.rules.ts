/**
 * A ticket's message as the API shows it (the `Message` component of the support document): the
 * routes answer it, and an operation's 409 names the newer messages in the same shape.
 */
import type { AttachmentRefusal } from './mail-in.rules';
import type { MessageDoc } from './support.model';

export const messageView = (m: MessageDoc) => ({
  id: m._id,
  conteudo: m.conteudo,
  remetente: m.remetente,
  origem: m.origem,
  createdAt: m.createdAt.toISOString(),
  ...(m.canal ? { canal: m.canal } : {}),
  ...(m.entrega ? { entrega: { estado: m.entrega.estado, motivo: m.entrega.motivo, atualizadoEm: m.entrega.atualizadoEm.toISOString() } } : {}),
  ...(m.dmarcFalhou ? { dmarcFalhou: true as const } : {}),
  ...(m.arquivosRecusados?.length ? { arquivosRecusados: m.arquivosRecusados.map((f) => ({ nome: f.nome, tipo: f.tipo, tamanho: f.tamanho, motivo: f.motivo as AttachmentRefusal, detalhe: f.detalhe })) } : {}),
});
