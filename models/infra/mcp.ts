/**
 * Reads context from Model Context Protocol servers (the official SDK's client, over stdio or
 * Streamable HTTP): lists the server's resources and reads the configured ones (all by default).
 * A stdio server is started only from the operator's configuration (AI_MCP_STDIO_PROVIDERS), by
 * name: nothing a caller of the API writes becomes a command or an argument.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ContextProviderSpec } from '../ai/chat.rules';
import type { Outbound } from './outbound';

/** Stdio MCP servers by name, as the operator configured them (AI_MCP_STDIO_PROVIDERS). */
export type StdioServers = Record<string, { command: string; args: string[] }>;

export interface McpOptions {
  outbound: Outbound;
  /** The only programs a stdio provider may start, by name (AI_MCP_STDIO_PROVIDERS). */
  stdioServers: StdioServers;
  timeoutMs: number;
}

/** The configured stdio server of that name (own properties only: never `constructor` and the like). */
export function stdioServer(servers: StdioServers, name: string | undefined): StdioServers[string] | undefined {
  return name !== undefined && Object.hasOwn(servers, name) ? servers[name] : undefined;
}

/**
 * Why a provider may not be read, or undefined. A stdio provider names a configured server and
 * nothing else: a command or arguments (a registration or a run from before issue 35) are refused.
 */
export function refuseProvider(spec: Pick<ContextProviderSpec, 'transport' | 'server' | 'command' | 'args' | 'url'>, o: Pick<McpOptions, 'outbound' | 'stdioServers'>): string | undefined {
  if (spec.transport === 'stdio') {
    if (spec.command !== undefined || (spec.args?.length ?? 0) > 0) {
      return 'a stdio provider cannot name a command or arguments: it names a server the operator configured (AI_MCP_STDIO_PROVIDERS)';
    }
    if (!spec.server) return 'a stdio provider needs server: the name of a stdio MCP server the operator configured (AI_MCP_STDIO_PROVIDERS)';
    if (!stdioServer(o.stdioServers, spec.server)) {
      const names = Object.keys(o.stdioServers);
      return `stdio server ${spec.server} is not configured (AI_MCP_STDIO_PROVIDERS${names.length ? `: ${names.join(', ')}` : ' is empty'})`;
    }
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
      ? stdioTransport(stdioServer(o.stdioServers, spec.server)!)
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

/** The configured command line, with the SDK's default environment (no secrets of the worker's). */
function stdioTransport(server: StdioServers[string]): StdioClientTransport {
  return new StdioClientTransport({ command: server.command, args: server.args, stderr: 'ignore' });
}
