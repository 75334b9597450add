/**
 * A ticket's message as the API shows it (the `Message` component of the support document): the
 * routes answer it, and an operation's 409 names the newer messages in the same shape.
 */
import type { MessageDoc } from './support.model';

export const messageView = (m: MessageDoc) => ({
  id: m._id,
  conteudo: m.conteudo,
  remetente: m.remetente,
  origem: m.origem,
  createdAt: m.createdAt.toISOString(),
  ...(m.canal ? { canal: m.canal } : {}),
  ...(m.entrega ? { entrega: { estado: m.entrega.estado, motivo: m.entrega.motivo, atualizadoEm: m.entrega.atualizadoEm.toISOString() } } : {}),
});
