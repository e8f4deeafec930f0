import type { Block, PageDocument } from '../../../services/pages/document.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';

import { h } from '../pages/blocks.ts';

export type ClaimPath = Array<string | number>;
export type CredentialQueryView = {
  id: string;
  format: string;
  claims?: Array<{ id?: string; path: ClaimPath }>;
  claim_sets?: string[][];
};

/**
 * DCQL §6.4: without `claim_sets` every listed claim is required; with them, the claims that every
 * claim set names are. Keyed `<query id>|<JSON path>`, as the picker's values are.
 */
export function requiredClaims(queries: CredentialQueryView[]): Set<string> {
  const required = new Set<string>();
  for (const query of queries) {
    for (const claim of query.claims ?? []) {
      const inEverySet =
        !query.claim_sets || (claim.id !== undefined && query.claim_sets.every((set) => set.includes(claim.id!)));
      if (inEverySet) required.add(`${query.id}|${JSON.stringify(claim.path)}`);
    }
  }
  return required;
}

const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
const decideButtons = (canPresent: boolean) =>
  `${canPresent ? '<button type="submit" name="decision" value="approve">Present</button> ' : ''}<button type="submit" name="decision" value="decline" class="secondary">Decline</button>`;

/**
 * How a matching credential's status is marked. Suspended: the verifier will refuse it
 * (credential_suspended), the holder may still try. Unavailable: its list could not be checked, so it is
 * offered all the same and the verifier, which checks status itself, decides.
 */
function statusMark(status: string | undefined): string {
  if (status === 'suspended') return ' <strong class="suspended">suspended by its issuer</strong>';
  if (status === 'unavailable')
    return ' <strong class="suspended">status unknown: its list could not be checked; the verifier decides</strong>';
  return '';
}

/** One checkbox per claim path the request may receive from each matching credential; required ones marked. */
function disclosurePicker(action: string, view: Record<string, any>, csrf: string, required: Set<string>): string {
  const matches = (view.credential_matches?.matches ?? {}) as Record<
    string,
    Array<{ credential_id: string; claims: ClaimPath[]; status?: string }>
  >;
  const rows = Object.entries(matches).flatMap(([queryId, list]) =>
    (list[0]?.claims ?? []).map((path) => {
      const value = `${queryId}|${JSON.stringify(path)}`;
      const mark = required.has(value) ? ' <strong>(required)</strong>' : ' (optional)';
      const suspended = statusMark(list[0].status);
      return `<li><label><input type="checkbox" name="claim" value="${escapeHtml(value)}" checked> <code>${escapeHtml(queryId)}</code>: <code>${escapeHtml(path.join('.'))}</code>${mark} (from <code>${escapeHtml(list[0].credential_id)}</code>${suspended})</label></li>`;
    }),
  );
  const picker = rows.length
    ? `<fieldset><legend>Claims to disclose</legend><p>Unticking a required claim leaves the request unanswered in part: you will be asked to confirm.</p><ul>${rows.join('')}</ul></fieldset>`
    : '';
  const unknown = transactionsOf(view).some((t) => !t.known_type);
  const approval = unknown
    ? '<p><label><input type="checkbox" name="approve_unknown_transaction_types" value="yes"> I have read the transactions of unknown type above, raw, and authorize them</label></p>'
    : '';
  return `<form method="post" action="${escapeHtml(action)}">${hidden('csrf', csrf)}${picker}${approval}${decideButtons(true)}</form>`;
}

type TransactionView = { index: number; type: string; known_type: boolean; summary: string; fields: unknown };
const transactionsOf = (view: { transaction_data?: unknown }) => (view.transaction_data ?? []) as TransactionView[];

/** OpenID4VP 1.0 §8.4: what presenting authorizes, in words; an unknown type raw, to approve on purpose. */
function transactionBlocks(view: { transaction_data?: unknown }): Block[] {
  const transactions = transactionsOf(view);
  if (transactions.length === 0) return [];
  return [
    h(2, 'Transactions you authorize by presenting'),
    {
      kind: 'list',
      items: transactions.map((t) =>
        t.known_type
          ? [t.summary]
          : [{ strong: 'Unknown type ' }, { code: t.type }, ', shown raw: ', { code: JSON.stringify(t.fields) }],
      ),
    },
    ...(transactions.some((t) => !t.known_type)
      ? [
          {
            kind: 'notice' as const,
            tone: 'warning' as const,
            inlines: [
              'This wallet does not know every transaction type above: presenting needs your explicit approval of what it shows raw.',
            ],
          },
        ]
      : []),
  ];
}

/** The review page: who asks, how far it is trusted, what it asks for, what this session can answer. */
export function consentPage(action: string, view: Record<string, any>, csrf: string): PageDocument {
  const trust = view.trust as { trusted_target: boolean; verified: boolean; error?: string };
  const queries = (view.dcql_query?.credentials ?? []) as CredentialQueryView[];
  const required = requiredClaims(queries);
  const satisfiable = view.credential_matches?.satisfiable === true;
  const decide: Block[] = [
    {
      kind: 'paragraph',
      inlines: [
        'Decide: ',
        { code: `POST ${action}` },
        ' with ',
        { code: `csrf=${csrf}` },
        ' and ',
        ...(satisfiable
          ? [{ code: 'decision=approve' }, ' (and ', { code: 'claim=<query id>|<JSON path>' }, ' per claim) or ']
          : []),
        { code: 'decision=decline' },
        '.',
      ],
    },
  ];
  return {
    title: 'Review request',
    noindex: true,
    blocks: [
      h(1, 'Review request'),
      {
        kind: 'paragraph',
        inlines: [
          'Verifier ',
          { code: String(view.client_id) },
          ' asks for a presentation, answered to ',
          { code: String(view.response_uri) },
          ` (${String(view.response_mode)}).`,
        ],
      },
      trust.verified
        ? {
            kind: 'notice',
            tone: 'ok',
            inlines: [`The request is signed and its ${String(view.client_id_prefix)} client identifier checks out.`],
          }
        : {
            kind: 'notice',
            tone: 'warning',
            inlines: [`The request is not authenticated: ${trust.error ?? 'unverified'}.`],
          },
      ...(trust.trusted_target
        ? []
        : [
            {
              kind: 'notice' as const,
              tone: 'warning' as const,
              inlines: [
                "This verifier is not the wallet's configured target: presenting sends your claims to another origin.",
              ],
            },
          ]),
      h(2, 'Requested'),
      {
        kind: 'list',
        items: queries.map((q) => [
          { code: q.id },
          ` ${q.format}: `,
          (q.claims ?? [])
            .map(
              (c) =>
                `${c.path.join('.')}${required.has(`${q.id}|${JSON.stringify(c.path)}`) ? ' (required)' : ' (optional)'}`,
            )
            .join(', ') || 'the whole credential',
        ]),
      },
      ...transactionBlocks(view),
      ...(satisfiable
        ? [{ kind: 'html' as const, html: disclosurePicker(action, view, csrf, required), markdown: decide }]
        : [
            {
              kind: 'notice' as const,
              tone: 'error' as const,
              inlines: [
                'No credential of this session answers the request. You can still decline, so the verifier learns the answer. ',
                { link: 'Back to the wallet', href: '/' },
              ],
            },
            {
              kind: 'html' as const,
              html: `<form method="post" action="${escapeHtml(action)}">${hidden('csrf', csrf)}${decideButtons(false)}</form>`,
              markdown: decide,
            },
          ]),
    ],
  };
}

/** The second look when a required claim was unticked: send anyway, or decline. */
export function confirmPage(
  action: string,
  csrf: string,
  picks: string[],
  missing: string[],
  approveUnknownTransactions: boolean,
): PageDocument {
  const approval = approveUnknownTransactions ? hidden('approve_unknown_transaction_types', 'yes') : '';
  const form = `<form method="post" action="${escapeHtml(action)}">${hidden('csrf', csrf)}${hidden('confirm', 'yes')}${approval}${picks.map((pick) => hidden('claim', pick)).join('')}<button type="submit" name="decision" value="approve">Send anyway</button> <button type="submit" name="decision" value="decline" class="secondary">Decline</button></form>`;
  return {
    title: 'Required claims left out',
    noindex: true,
    blocks: [
      h(1, 'Required claims left out'),
      {
        kind: 'notice',
        tone: 'warning',
        inlines: [
          'The verifier asked for these claims as required; without them the presentation cannot satisfy its query, and it will most likely reject it:',
        ],
      },
      { kind: 'list', items: missing.map((m) => [{ code: m.replace('|', ': ') }]) },
      {
        kind: 'html',
        html: form,
        markdown: [
          {
            kind: 'paragraph',
            inlines: [
              'Send anyway: ',
              { code: `POST ${action}` },
              ' with ',
              { code: 'confirm=yes' },
              ', the same picks, and ',
              { code: `csrf=${csrf}` },
              '; or ',
              { code: 'decision=decline' },
              '.',
            ],
          },
        ],
      },
      { kind: 'paragraph', inlines: [{ link: 'Review the request again', href: action }] },
    ],
  };
}
