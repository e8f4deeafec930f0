import { deflateRawSync } from 'node:zlib';
import { ATTACKS, LEGIT_NAME, VICTIM_NAME, type Attack } from '../../saml/lab/attacks.ts';
import { mintResponse, type LabIdp, type LabTarget } from '../../saml/lab/mint.ts';
import { FlowFailure, type FlowRunners, type RunContext } from '../registry.ts';
import { BINDING } from '../../saml/constants.ts';
import { readMetadata } from '../../saml/metadata.ts';

/** What the lab needs from the deployment: our IdP's identity and key (the SP under test trusts it). */
export type LabKeys = () => Promise<LabIdp>;

/** 6 MiB of zeros in about 6 KiB of DEFLATE: small enough for a URL, far past any sane bound. */
let bomb: string | undefined;
const deflateBomb = () =>
  (bomb ??= encodeURIComponent(deflateRawSync(Buffer.alloc(6 * 1024 * 1024)).toString('base64')));

type Answer = { status: number; text: string };
const accepted = (answer: Answer) => answer.status >= 200 && answer.status < 400;

/**
 * The verdict on one attack. Refused is safe. For wrapping and the comment injection, accepting is safe
 * only when the answer shows the legitimate identity (the signed assertion was consumed, not the copy).
 */
function judge(attack: Attack, answer: Answer, second?: Answer) {
  if (attack.name === 'replayed-assertion')
    return second && !accepted(second)
      ? {
          passed: true,
          detail: `the first answer was HTTP ${answer.status}; the replay was refused (HTTP ${second.status})`,
        }
      : { passed: false, detail: `the replay was accepted (HTTP ${second?.status})` };
  if (attack.name === 'deflate-bomb')
    return answer.status >= 400 && answer.status < 500
      ? { passed: true, detail: `refused with HTTP ${answer.status}` }
      : { passed: false, detail: `HTTP ${answer.status}: a bounded inflate refuses with a 4xx` };
  if (!accepted(answer))
    return { passed: true, detail: `refused (HTTP ${answer.status}): ${answer.text.slice(0, 200)}` };
  const wrapped = attack.name.startsWith('XSW');
  if (attack.name === 'comment-in-nameid') {
    if (answer.text.includes(`${VICTIM_NAME}.attacker.example`))
      return { passed: true, detail: 'signed in the whole NameID, comment or not' };
    return {
      passed: false,
      detail: answer.text.includes(VICTIM_NAME)
        ? `signed in ${VICTIM_NAME}: the NameID was cut at the comment`
        : 'accepted, and the answer does not show which identity',
    };
  }
  if (wrapped && answer.text.includes(LEGIT_NAME) && !answer.text.includes(VICTIM_NAME))
    return { passed: true, detail: 'accepted, but consumed only the signed assertion (the legitimate user)' };
  return {
    passed: false,
    detail: `accepted (HTTP ${answer.status})${answer.text.includes(VICTIM_NAME) ? `, signed in ${VICTIM_NAME}` : ''}`,
  };
}

/** The SP under test from its metadata (fetched like every request of a targeted run: through the outbound guard). */
async function fromMetadata(run: RunContext, url: string): Promise<LabTarget & { sloUrl?: string }> {
  const response = await run.http.send('SP metadata', url, {}, [
    'SAML metadata §2.4.4: entity ID, ACS and SLO endpoints, WantAssertionsSigned',
  ]);
  if (response.status !== 200) throw new FlowFailure(`the SP metadata answered HTTP ${response.status}`);
  let metadata;
  try {
    metadata = readMetadata(response.text, run.nowS() * 1000);
  } catch (error) {
    throw new FlowFailure(`the SP metadata cannot be used: ${(error as Error).message}`);
  }
  const acs =
    metadata.acs.find((e) => e.binding === BINDING.post && e.isDefault) ??
    metadata.acs.find((e) => e.binding === BINDING.post);
  if (!acs) throw new FlowFailure('the SP metadata has no HTTP-POST AssertionConsumerService');
  const slo = metadata.slo.find((e) => e.binding === BINDING.redirect);
  return {
    entityId: metadata.entityId,
    acsUrl: acs.url,
    wantAssertionsSigned: metadata.wantAssertionsSigned,
    ...(slo ? { sloUrl: slo.url } : {}),
  };
}

/** `saml/attack-lab`: classic attacks on an SP's ACS, each a named check; our SP by default. */
async function attackLab(run: RunContext, keys: LabKeys): Promise<void> {
  if (run.samlTarget?.idpMetadataUrl)
    throw new FlowFailure('the attack lab attacks an SP: give its metadata_url or acs_url');
  const idp = await keys();
  const target: LabTarget & { sloUrl?: string } = run.samlTarget?.metadataUrl
    ? await fromMetadata(run, run.samlTarget.metadataUrl)
    : (run.samlTarget ?? {
        entityId: `${run.base}/saml/sp`,
        acsUrl: `${run.base}/saml/sp/acs`,
        wantAssertionsSigned: true,
        sloUrl: `${run.base}/saml/sp/slo`,
      });
  const post = async (step: string, xml: string, notes: string[]): Promise<Answer> => {
    const response = await run.http.send(
      step,
      target.acsUrl,
      { form: { SAMLResponse: Buffer.from(xml).toString('base64') } },
      notes,
    );
    return { status: response.status, text: response.text };
  };
  const baseline = await post('Baseline: a legitimate Response', mintResponse(idp, target, run.nowS() * 1000).xml, [
    'A valid Response from the IdP the SP trusts: it must be accepted, or the lab cannot tell refusals apart',
  ]);
  const usable = accepted(baseline);
  await run.check({
    check: 'baseline',
    verdict: usable ? 'passed' : 'failed',
    rule: 'SAML profiles §4.1.4.3',
    detail: usable
      ? `accepted (HTTP ${baseline.status})`
      : `a legitimate Response was refused (HTTP ${baseline.status}): ${baseline.text.slice(0, 200)}`,
  });
  for (const attack of ATTACKS) {
    const skipped = !usable
      ? 'the baseline was refused'
      : attack.name === 'unsigned-assertion-in-signed-response' && !target.wantAssertionsSigned
        ? 'the SP does not ask for signed assertions'
        : attack.name === 'deflate-bomb' && !target.sloUrl
          ? 'the target names no HTTP-Redirect endpoint (slo_url)'
          : undefined;
    if (skipped) {
      await run.check({ check: attack.name, verdict: 'not_applicable', rule: attack.rule, detail: skipped });
      continue;
    }
    const delivery = attack.build(idp, target, run.nowS() * 1000);
    const notes = [attack.explanation, attack.rule];
    let answer: Answer;
    let second: Answer | undefined;
    if (delivery.kind === 'redirect-bomb') {
      const response = await run.http.send(
        `Attack ${attack.name}`,
        `${target.sloUrl}?SAMLRequest=${deflateBomb()}`,
        {},
        notes,
      );
      answer = { status: response.status, text: response.text };
    } else {
      answer = await post(`Attack ${attack.name}`, delivery.xml, notes);
      if (delivery.kind === 'post-twice') second = await post(`Attack ${attack.name} (again)`, delivery.xml, notes);
    }
    const verdict = judge(attack, answer, second);
    await run.check({
      check: attack.name,
      verdict: verdict.passed ? 'passed' : 'failed',
      rule: attack.rule,
      detail: `${attack.explanation} ${verdict.detail}`,
    });
  }
}

export function registerSamlLab(runners: FlowRunners, keys: LabKeys): void {
  runners.register('saml', 'attack-lab', (run) => attackLab(run, keys));
}
