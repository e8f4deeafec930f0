import type { OutboundHttp } from '../outbound.ts';
import type { StatusListForm, StatusLists } from './lists.ts';

/** A status list as fetched: its media type and bytes. */
interface FetchedList {
  contentType: string;
  body: Buffer;
}

/** Why a list could not be had (its check is `status_unavailable`). */
export class StatusListUnavailable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'StatusListUnavailable';
  }
}

/** Where status lists come from: a URL and the media type wanted. */
export type StatusListSource = (url: string, accept: string) => Promise<FetchedList>;

/** Status lists of any origin, fetched through the outbound guard (the wallet; another issuer's lists). */
export function guardedListSource(outbound: OutboundHttp): StatusListSource {
  return async (url, accept) => {
    let response;
    try {
      response = await outbound.send(url, { headers: { accept } });
    } catch (error) {
      throw new StatusListUnavailable(`${new URL(url).origin} could not be reached: ${(error as Error).message}`);
    }
    if (response.status !== 200) throw new StatusListUnavailable(`the list's URL answered HTTP ${response.status}`);
    return { contentType: (response.headers['content-type'] ?? '').split(';')[0].trim(), body: response.body };
  };
}

const FORM_MEDIA: Record<StatusListForm, string> = {
  jwt: 'application/statuslist+jwt',
  cwt: 'application/statuslist+cwt',
  'w3c-revocation': 'application/vc+jwt',
  'w3c-suspension': 'application/vc+jwt',
};
export const mediaTypeOf = (form: StatusListForm) => FORM_MEDIA[form];

/** The list a URL of our own issuer names (`{issuer}/status-lists/[w3c/<purpose>/]<id>`), when it names one. */
function ownListOf(issuer: string, url: string): { listId: string; form: StatusListForm } | undefined {
  if (!url.startsWith(`${issuer}/status-lists/`)) return undefined;
  const rest = url.slice(issuer.length + '/status-lists/'.length);
  const w3c = /^w3c\/(revocation|suspension)\/([A-Za-z0-9_-]{1,64})$/.exec(rest);
  if (w3c) return { listId: w3c[2], form: w3c[1] === 'revocation' ? 'w3c-revocation' : 'w3c-suspension' };
  return /^[A-Za-z0-9_-]{1,64}$/.test(rest) ? { listId: rest, form: 'jwt' } : undefined;
}

/** Our own issuer's lists read in process; every other origin through the guard. */
export function mainOriginListSource(issuer: string, lists: StatusLists, outbound: OutboundHttp): StatusListSource {
  const elsewhere = guardedListSource(outbound);
  return async (url, accept) => {
    const own = ownListOf(issuer, url);
    if (!own) return elsewhere(url, accept);
    const form = own.form === 'jwt' && accept === FORM_MEDIA.cwt ? 'cwt' : own.form;
    const body = await lists.serve(own.listId, form);
    if (body === undefined) throw new StatusListUnavailable('the issuer has no such status list');
    return { contentType: FORM_MEDIA[form], body: Buffer.from(body) };
  };
}
