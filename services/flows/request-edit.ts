import { invalidRequest } from '../errors.ts';
import { recordFrom } from '../untrusted/keys.ts';

/** A request a runner is about to send, as step mode shows and edits it. */
export interface PendingRequest {
  step: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  form?: Record<string, string>;
  json?: unknown;
}

/** What a learner changes before a step: add or replace a field, or remove it with `null`. */
export interface RequestEdit {
  query?: Record<string, unknown>;
  form?: Record<string, unknown>;
  json?: Record<string, unknown>;
  headers?: Record<string, unknown>;
}

const PARTS = ['query', 'form', 'json', 'headers'] as const;
/** RFC 9110 §5.1 field names, and values without control characters (no header injection). */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]{0,4096}$/;

/** The edit as the request body gave it, checked: only the four parts, each an object of named changes. */
export function requestEditOf(body: unknown): RequestEdit | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('The body must be an object');
  const edit = (body as { edit?: unknown }).edit;
  if (edit === undefined) return undefined;
  if (!edit || typeof edit !== 'object' || Array.isArray(edit)) throw invalidRequest('edit must be an object');
  for (const key of Object.keys(edit))
    if (!(PARTS as readonly string[]).includes(key))
      throw invalidRequest(`edit.${key.slice(0, 40)} is not query, form, json or headers`);
  for (const part of PARTS) {
    const changes = (edit as Record<string, unknown>)[part];
    if (changes !== undefined && (!changes || typeof changes !== 'object' || Array.isArray(changes)))
      throw invalidRequest(`edit.${part} must be an object of field changes`);
  }
  return edit as RequestEdit;
}

type Change = { name: string; value: unknown };
const changesOf = (part: Record<string, unknown> | undefined): Change[] =>
  Object.entries(part ?? {}).map(([name, value]) => ({ name, value }));

/** A text field's new value: a string, or null to remove it. */
function textValue(where: string, name: string, value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') throw invalidRequest(`${where}.${name} must be a string, or null to remove it`);
  return value;
}

/**
 * Applies `edit` to the request a paused run sends next; answers the edited request and what changed
 * (`form.code_verifier: replaced`, `query.state: removed`). Names never become keys of ordinary objects.
 */
export function applyEdit(request: PendingRequest, edit: RequestEdit): { request: PendingRequest; edits: string[] } {
  const edits: string[] = [];
  const note = (part: string, name: string, had: boolean, value: unknown) =>
    edits.push(`${part}.${name}: ${value === null ? (had ? 'removed' : 'absent') : had ? 'replaced' : 'added'}`);

  const url = new URL(request.url);
  for (const { name, value } of changesOf(edit.query)) {
    const text = textValue('query', name, value);
    note('query', name, url.searchParams.has(name), text);
    if (text === null) url.searchParams.delete(name);
    else url.searchParams.set(name, text);
  }

  const headers = new Map(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]));
  for (const { name, value } of changesOf(edit.headers)) {
    if (!FIELD_NAME.test(name)) throw invalidRequest('edit.headers names must be HTTP field names (RFC 9110 §5.1)');
    const text = textValue('headers', name, value);
    if (text !== null && !FIELD_VALUE.test(text))
      throw invalidRequest(`headers.${name} holds characters a field value cannot`);
    const key = name.toLowerCase();
    if (key === 'content-type' || key === 'content-length' || key === 'host')
      throw invalidRequest(`headers.${key} follows the body and the URL; it cannot be edited`);
    note('headers', key, headers.has(key), text);
    if (text === null) headers.delete(key);
    else headers.set(key, text);
  }

  let form = request.form && new Map(Object.entries(request.form));
  if (edit.form) {
    if (!form) throw invalidRequest('The next request has no form body to edit');
    for (const { name, value } of changesOf(edit.form)) {
      const text = textValue('form', name, value);
      note('form', name, form.has(name), text);
      if (text === null) form.delete(name);
      else form.set(name, text);
    }
  }

  let json = request.json;
  if (edit.json) {
    if (!json || typeof json !== 'object' || Array.isArray(json))
      throw invalidRequest('The next request has no JSON object body to edit');
    const fields = new Map(Object.entries(json as Record<string, unknown>));
    for (const { name, value } of changesOf(edit.json)) {
      note('json', name, fields.has(name), value);
      if (value === null) fields.delete(name);
      else fields.set(name, value);
    }
    json = recordFrom(fields);
  }

  return {
    request: {
      ...request,
      url: url.toString(),
      headers: recordFrom(headers),
      ...(form ? { form: recordFrom(form) } : {}),
      ...(json !== undefined ? { json } : {}),
    },
    edits,
  };
}
