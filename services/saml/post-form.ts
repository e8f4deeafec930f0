/** The HTML of an HTTP-POST binding page (SAML bindings §3.5.4), read back: its form's action and hidden fields. */
export interface PostForm {
  action: string;
  fields: Record<string, string>;
}

const unescapeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The first form of a page: its action and hidden inputs (names from the page: kept off Object.prototype). */
export function readPostForm(html: string): PostForm | undefined {
  const action = /<form[^>]*action="([^"]*)"/.exec(html)?.[1];
  if (action === undefined) return undefined;
  const fields = Object.create(null) as Record<string, string>;
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
    fields[m[1]!] = unescapeHtml(m[2]!);
  return { action: unescapeHtml(action), fields };
}
