/**
 * A real Model Context Protocol server built with the official SDK, serving two resources: a
 * short style guide and a long document (to exercise the 10,000-character cap). Run it over stdio
 * (`node --import tsx tests/doubles/mcp-server.ts stdio [bigChars]`) or start it over Streamable
 * HTTP + TLS with startHttpsMcpServer().
 */
import { createServer, type Server } from 'node:https';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export const STYLE_GUIDE = 'Guia de estilo: frases curtas, tom amigável, nunca prometa prazos.';

export function buildMcpServer(bigChars: number, label: string): McpServer {
  const server = new McpServer({ name: `test-context-${label}`, version: '1.0.0' });
  server.registerResource('style-guide', 'context://newsletter/style-guide', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: `${STYLE_GUIDE} (${label})` }],
  }));
  server.registerResource('big-document', 'context://newsletter/big', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'x'.repeat(bigChars) }],
  }));
  return server;
}

export async function startHttpsMcpServer(tls: { key: string; cert: string }, bigChars = 100): Promise<{ url: string; server: Server }> {
  const server = createServer(tls, async (req, res) => {
    // Stateless: a fresh MCP server and transport per request, as the SDK documents.
    const mcp = buildMcpServer(bigChars, 'http');
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return { url: `https://127.0.0.1:${port}/mcp`, server };
}

if (require.main === module && process.argv[2] === 'stdio') {
  const server = buildMcpServer(Number(process.argv[3] ?? 100), 'stdio');
  void server.connect(new StdioServerTransport());
}
