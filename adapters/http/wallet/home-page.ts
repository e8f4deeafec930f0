import type { PageDocument } from '../../../services/pages/document.ts';
import { subjectLabel, type WalletSession } from '../../../services/wallet/sessions.ts';
import type { WalletContext } from './context.ts';

import { h } from '../pages/blocks.ts';

/** The wallet for people: the session, its keys, credentials with their claims, pending requests. */
export function walletHomePage(ctx: WalletContext, session: WalletSession): PageDocument {
  const credentials = [...session.credentials.values()];
  const pending = [...session.pending.keys()];
  return {
    title: 'Wallet',
    description: 'A headless wallet for OID4VCI and OID4VP: this session, its keys and credentials',
    noindex: true,
    blocks: [
      h(1, 'Wallet'),
      {
        kind: 'notice',
        tone: 'info',
        inlines: [
          'This browser has its own wallet session, kept in memory for ',
          { code: `${Math.round(ctx.settings.sessionTtlMs / 60_000)} min` },
          ' after the last use. Agents drive the same wallet over the JSON API: see the ',
          { link: 'recipes', href: '/llms-full.txt' },
          '.',
        ],
      },
      h(2, 'Session'),
      {
        kind: 'table',
        head: ['Field', 'Value'],
        rows: [
          [['Session'], [{ code: session.id }]],
          [['Holder DID'], [{ code: session.did }]],
          [['Subject label'], [{ code: subjectLabel(ctx.settings.defaultSubject, session.id) }]],
          [['Holder key thumbprint'], [{ code: session.holder.kid }]],
          [
            ['Device key (mdoc)'],
            [
              { code: ctx.deviceKey.pair.kid },
              ctx.deviceKey.persistent ? ' (persistent)' : ' (ephemeral: lost on restart)',
            ],
          ],
          [['HAIP issuance material'], [ctx.settings.haipEnabled ? 'configured' : 'not configured']],
        ],
      },
      h(2, 'Credentials'),
      credentials.length
        ? {
            kind: 'table',
            head: ['Credential', 'Format', 'Type', 'Claims'],
            rows: credentials.map((c) => [
              [{ code: c.credential_id }],
              [c.format],
              [c.vct ?? c.doctype ?? (c.types ?? []).join(', ')],
              [JSON.stringify(c.claims)],
            ]),
          }
        : {
            kind: 'paragraph',
            inlines: [
              'No credentials yet. Issuance: ',
              { code: 'POST /api/issue' },
              ' or ',
              { code: 'POST /api/import' },
              '.',
            ],
          },
      h(2, 'Pending presentation requests'),
      pending.length
        ? {
            kind: 'list',
            items: pending.map((id) => [
              { link: `Review request ${id}`, href: `/consent/${id}` },
              ' (',
              { link: `QR code of request ${id}`, href: `/consent/${id}/qr` },
              ')',
            ]),
          }
        : {
            kind: 'paragraph',
            inlines: [
              'None. A verifier request resolved with ',
              { code: 'POST /api/resolve' },
              ' or opened at ',
              { code: '/authorize' },
              ' waits here for consent.',
            ],
          },
    ],
  };
}
