import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { FileKeyRing } from '../../adapters/keys/file-key-ring.ts';
import { issueSdJwtVc } from '../../services/credentials/sd-jwt/issue.ts';
import { holderKey, issueFromOurIssuer } from '../../test/support/holder.ts';
import { startChildServer } from '../support/child-server.ts';
import { QUERIES, presentationFlow, sdJwtPresenter } from './support/presentation-flow.ts';
import { flowFigure, interleavedRounds, type Bench } from './types.ts';

const DURATION_MS = 4_000;
const ROUNDS = 5;

/**
 * Credential status at the verifier (issue 34): an SD-JWT VC presentation whose credential carries a
 * status reference (its list cached within the ttl after the first flow) against the same flow with
 * a credential that has none, on one server, interleaved. Target: at most 1.10x the time per flow.
 */
const bench: Bench = async () => {
  const server = await startChildServer();
  try {
    const holder = await holderKey();
    const nowS = Math.floor(Date.now() / 1000);
    const withStatus = (await issueFromOurIssuer(server.url, 'UniversityDegreeCredential', holder, nowS)) as string;
    // The same credential without a status reference, signed with the server's own issuer key.
    const keys = await FileKeyRing.open(join(server.dataDir, 'keys.json'), [['oid4vci', 'ES256']]);
    const key = keys.signing('oid4vci', 'ES256');
    const claims = {
      given_name: 'alice',
      family_name: 'Anderson',
      degree: 'Bachelor of Science',
      department: 'Computer Science',
      graduation_year: 2012,
    };
    const without = await issueSdJwtVc({
      issuer: { alg: 'ES256', privateKey: key.privateKey as CryptoKey, kid: key.kid, iss: `${server.url}/oid4vci` },
      vct: 'UniversityDegreeCredential',
      claims,
      disclosable: Object.keys(claims).map((name) => [name]),
      holderJwk: holder.jwk,
      now: nowS,
      expiresIn: 3600,
    });
    const query = QUERIES['SD-JWT VC'];
    const r = await interleavedRounds(
      ROUNDS,
      async () =>
        flowFigure(
          presentationFlow(server.url, query, await sdJwtPresenter(withStatus, holder)),
          server.child.pid!,
          DURATION_MS,
        ),
      async () =>
        flowFigure(
          presentationFlow(server.url, query, await sdJwtPresenter(without.sdJwt, holder)),
          server.child.pid!,
          DURATION_MS,
        ),
    );
    return [
      { name: 'SD-JWT VC presentation, no status reference', value: r.theirs.perSecond, unit: 'flows/s' },
      {
        name: 'SD-JWT VC presentation, status list checked (cached)',
        value: r.ours.perSecond,
        unit: 'flows/s',
        // Time per flow with the status check over time per flow without it.
        ratio: { against: 'time per flow without status', value: 1 / r.throughputRatio, target: '<= 1.10' },
        note: `rounds ${r.rounds}`,
      },
      { name: '  server CPU per flow, no status', value: r.theirs.cpuMicros, unit: 'µs' },
      {
        name: '  server CPU per flow, status checked',
        value: r.ours.cpuMicros,
        unit: 'µs',
        ratio: { against: 'CPU per flow without status (ours / theirs)', value: 1 / r.cpuRatio, target: '<= 1.10' },
      },
    ];
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
};

export default bench;
