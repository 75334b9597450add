/**
 * Reads context from Model Context Protocol servers (the official SDK's client, over stdio or
 * Streamable HTTP): lists the server's resources and reads the configured ones (all by default).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ContextProviderSpec } from '../ai/chat.rules';
import type { Outbound } from './outbound';

export interface McpOptions {
  outbound: Outbound;
  /** Commands stdio providers may run (AI_MCP_STDIO_COMMANDS). */
  stdioCommands: string[];
  timeoutMs: number;
}

export function refuseProvider(spec: Pick<ContextProviderSpec, 'transport' | 'command' | 'url'>, o: Pick<McpOptions, 'outbound' | 'stdioCommands'>): string | undefined {
  if (spec.transport === 'stdio') {
    if (!spec.command) return 'a stdio provider needs a command';
    if (!o.stdioCommands.includes(spec.command)) return `command ${spec.command} is not allowed (AI_MCP_STDIO_COMMANDS)`;
    return undefined;
  }
  if (!spec.url) return 'an http provider needs a url';
  return o.outbound.refuse(spec.url);
}

export async function readMcpContext(spec: ContextProviderSpec, o: McpOptions): Promise<string> {
  const refused = refuseProvider(spec, o);
  if (refused) throw new Error(refused);
  const client = new Client({ name: 'newsletter-platform', version: '0.1.0' });
  const transport =
    spec.transport === 'stdio'
      ? new StdioClientTransport({ command: spec.command!, args: spec.args ?? [], stderr: 'ignore' })
      : new StreamableHTTPClientTransport(new URL(spec.url!), { fetch: o.outbound.fetch as never });
  const timeout = AbortSignal.timeout(o.timeoutMs);
  try {
    await client.connect(transport, { signal: timeout, timeout: o.timeoutMs });
    let uris = spec.resources;
    if (uris.length === 0) {
      const listed = await client.listResources(undefined, { signal: timeout, timeout: o.timeoutMs });
      uris = listed.resources.map((r) => r.uri);
    }
    const parts: string[] = [];
    for (const uri of uris) {
      const read = await client.readResource({ uri }, { signal: timeout, timeout: o.timeoutMs });
      for (const c of read.contents) {
        parts.push('text' in c && typeof c.text === 'string' ? c.text : `[binary resource ${c.uri} (${c.mimeType ?? 'unknown type'}) omitted]`);
      }
    }
    return parts.join('\n\n');
  } finally {
    await client.close().catch(() => undefined);
  }
}
