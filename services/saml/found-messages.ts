import { inflateBounded } from './redirect-binding.ts';
import { readPostForm } from './post-form.ts';

/** A SAML message met in a recorded exchange, decoded for the run's timeline. */
export interface FoundSamlMessage {
  /** Where it was: the request URL, the request form, the response's Location, the response's form. */
  where: 'request.url' | 'request.form' | 'response.location' | 'response.form';
  field: 'SAMLRequest' | 'SAMLResponse';
  binding: 'HTTP-Redirect' | 'HTTP-POST';
  /** The XML, signature values removed (as for JWTs: readable, not a copy to replay). */
  xml: string;
}

const FIELDS = ['SAMLRequest', 'SAMLResponse'] as const;
const MAX_SHOWN = 32 * 1024;

const withoutSignatureValues = (xml: string) =>
  xml.replace(/(<(?:\w+:)?SignatureValue[^>]*>)[^<]*(<\/)/g, '$1(removed)$2').slice(0, MAX_SHOWN);

function decode(value: string): string | undefined {
  try {
    const bytes = Buffer.from(value, 'base64');
    const text = bytes.toString('utf8');
    const xml = /^\s*</.test(text) ? text : inflateBounded(bytes);
    return /^\s*</.test(xml) ? withoutSignatureValues(xml) : undefined;
  } catch {
    return undefined;
  }
}

/** The SAML messages of one exchange: in URLs (HTTP-Redirect) and in forms (HTTP-POST). */
export function samlMessagesOf(exchange: {
  url: string;
  form?: Record<string, string>;
  location?: string;
  html?: string;
}): FoundSamlMessage[] {
  const found: FoundSamlMessage[] = [];
  const add = (
    where: FoundSamlMessage['where'],
    field: FoundSamlMessage['field'],
    binding: FoundSamlMessage['binding'],
    value: string | undefined,
  ) => {
    const xml = value ? decode(value) : undefined;
    if (xml) found.push({ where, field, binding, xml });
  };
  const posted = exchange.html ? readPostForm(exchange.html) : undefined;
  for (const field of FIELDS) {
    if (URL.canParse(exchange.url))
      add('request.url', field, 'HTTP-Redirect', new URL(exchange.url).searchParams.get(field) ?? undefined);
    add('request.form', field, 'HTTP-POST', exchange.form?.[field]);
    if (exchange.location && URL.canParse(exchange.location))
      add('response.location', field, 'HTTP-Redirect', new URL(exchange.location).searchParams.get(field) ?? undefined);
    add('response.form', field, 'HTTP-POST', posted?.fields[field]);
  }
  return found;
}
