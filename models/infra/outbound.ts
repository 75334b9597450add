/**
 * Outbound HTTP for registered AI tools and MCP context providers: only hosts on the configured
 * allow-list, HTTPS (extra CAs from AI_TOOL_CA_FILE), no redirects, a timeout and a response cap.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent, fetch as undiciFetch } from 'undici';
import type { Config } from '../config';

export type OutboundFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface Outbound {
  allowlist: string[];
  fetch: OutboundFetch;
  /** Why a URL may not be called, or undefined when it may. */
  refuse(url: string): string | undefined;
}

export function createOutbound(config: Pick<Config, 'ai'>): Outbound {
  const allowlist = config.ai.toolHostAllowlist.map((h) => h.toLowerCase());
  const ca = config.ai.toolCaFile ? readFileSync(config.ai.toolCaFile, 'utf8') : undefined;
  const dispatcher = new Agent({ connect: ca ? { ca: [ca, ...rootCertificates] } : {}, connectTimeout: 10_000 });
  const refuse = (raw: string): string | undefined => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'not a valid URL';
    }
    if (url.protocol !== 'https:') return 'only https endpoints are allowed';
    if (url.username || url.password) return 'credentials in the URL are not allowed';
    if (!allowlist.includes(url.hostname.toLowerCase())) return `host ${url.hostname} is not on the allow-list (AI_TOOL_HOST_ALLOWLIST)`;
    return undefined;
  };
  return {
    allowlist,
    refuse,
    fetch: async (url, init = {}) => {
      const reason = refuse(String(url));
      if (reason) throw new Error(`refused to call ${String(url)}: ${reason}`);
      return (await undiciFetch(String(url), { ...(init as object), dispatcher, redirect: 'error' } as Parameters<typeof undiciFetch>[1])) as unknown as Response;
    },
  };
}

/** Reads a response body up to `max` bytes (a tool answering more is cut off). */
export async function readCapped(res: Response, max: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new Error(`response larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
