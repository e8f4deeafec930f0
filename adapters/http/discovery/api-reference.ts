import { highlightJson } from '../../../services/pages/highlight.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import { htmlPage } from '../pages/respond.ts';

interface OpenApi {
  info: { title: string; version: string; description?: string };
  paths: Record<
    string,
    Record<
      string,
      {
        summary?: string;
        tags?: string[];
        requestBody?: unknown;
        parameters?: unknown[];
        responses?: Record<string, unknown>;
      }
    >
  >;
}

/** A readable API reference rendered on the server from the OpenAPI document itself. */
/** Summaries are written with markdown code spans (`GET /x`): shown as code, never as literal backticks. */
const withInlineCode = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

export function apiReferenceHtml(spec: OpenApi): string {
  const byTag = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(spec.paths).sort(([a], [b]) => a.localeCompare(b))) {
    for (const [method, op] of Object.entries(ops)) {
      const tag = op.tags?.[0] ?? 'other';
      const responses = Object.keys(op.responses ?? {}).join(', ');
      const body = op.requestBody
        ? `<details><summary>Request body</summary><pre><code>${escapeHtml(JSON.stringify(op.requestBody, null, 2))}</code></pre></details>`
        : '';
      const params = op.parameters?.length
        ? `<details><summary>Parameters</summary><pre><code>${escapeHtml(JSON.stringify(op.parameters, null, 2))}</code></pre></details>`
        : '';
      // The success responses with their schema (what a call returns), errors by status only.
      const success = Object.entries(op.responses ?? {}).filter(([code]) => /^[23]/.test(code));
      const returns = success.length
        ? `<details><summary>Success response${success.length > 1 ? 's' : ''} (${escapeHtml(success.map(([c]) => c).join(', '))})</summary><pre><code class="language-json">${highlightJson(JSON.stringify(Object.fromEntries(success), null, 2))}</code></pre></details>`
        : '';
      const list = byTag.get(tag) ?? [];
      list.push(
        `<li><p><code>${method.toUpperCase()} ${escapeHtml(path)}</code> — ${withInlineCode(op.summary ?? '')}${responses ? ` <small>(responses: ${escapeHtml(responses)})</small>` : ''}</p>${params}${body}${returns}</li>`,
      );
      byTag.set(tag, list);
    }
  }
  const sections = [...byTag.entries()]
    .map(([tag, items]) => `<h2 id="${escapeHtml(tag)}">${escapeHtml(tag)}</h2><ul>${items.join('')}</ul>`)
    .join('\n');
  const page = htmlPage({ title: 'API reference', blocks: [] });
  return page.replace(
    '<main id="main"></main>',
    `<main id="main"><h1>${escapeHtml(spec.info.title)} ${escapeHtml(spec.info.version)}</h1><p>${withInlineCode(spec.info.description ?? '')} The machine-readable contract is <a href="/openapi.json">/openapi.json</a>.</p>${sections}</main>`,
  );
}

/** The reference's markdown twin (spec §4 rule 4): every operation by tag, its summary and statuses. */
export function apiReferenceMarkdown(spec: OpenApi): string {
  const byTag = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(spec.paths).sort(([a], [b]) => a.localeCompare(b)))
    for (const [method, op] of Object.entries(ops)) {
      const tag = op.tags?.[0] ?? 'other';
      const responses = Object.keys(op.responses ?? {}).join(', ');
      const list = byTag.get(tag) ?? [];
      list.push(
        `- \`${method.toUpperCase()} ${path}\`: ${(op.summary ?? '').replace(/\s+/g, ' ')}${responses ? ` (responses: ${responses})` : ''}`,
      );
      byTag.set(tag, list);
    }
  const sections = [...byTag.entries()].map(([tag, items]) => `## ${tag}\n\n${items.join('\n')}`);
  return `# ${spec.info.title} ${spec.info.version}\n\n${spec.info.description ?? ''} The machine-readable contract is \`/openapi.json\`.\n\n${sections.join('\n\n')}\n`;
}
