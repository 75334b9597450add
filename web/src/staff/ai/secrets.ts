/**
 * Addresses that may carry a secret (an MCP provider's or an HTTP tool's URL: `user:password@`, a
 * `?token=`, a fragment) are write-only on these pages: shown with those parts masked, never
 * filled back into a form (a field left empty keeps what is stored).
 */
export const MASK = '•••';

/** `https://user:pw@mcp.example.com/sse?token=abc#x` → `https://•••@mcp.example.com/sse?token=•••#•••`. */
export function maskUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return MASK;
  }
  const auth = url.username || url.password ? `${MASK}@` : '';
  const query = [...url.searchParams.keys()].map((k) => `${encodeURIComponent(k)}=${MASK}`).join('&');
  return `${url.protocol}//${auth}${url.host}${url.pathname}${query ? `?${query}` : ''}${url.hash ? `#${MASK}` : ''}`;
}
