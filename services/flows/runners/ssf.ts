import { FlowFailure, expectStatus, stringIn, type FlowRunners, type RunContext } from '../registry.ts';
import { machineToken } from './oauth-helpers.ts';

const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
const SUBJECT = { format: 'email', email: 'alice@example.com' };

/** A client_credentials token with scope `ssf` for the demo machine client, and the Bearer header of it. */
export async function managementToken(run: RunContext): Promise<Record<string, string>> {
  const token = await machineToken(
    run,
    'ssf',
    'Token for the management API',
    'SSF 1.0 §8: the management API is an OAuth-protected resource (authorization_schemes urn:ietf:rfc:6749)',
  );
  return { authorization: `Bearer ${token}` };
}

async function discover(run: RunContext) {
  const config = await run.http.send('Transmitter configuration', `${run.base}/.well-known/ssf-configuration`, {}, [
    'SSF 1.0 §7.1: endpoints, delivery methods, jwks_uri',
  ]);
  expectStatus(config.status, 200, 'configuration');
  return config.body as Record<string, string>;
}

async function createStream(
  run: RunContext,
  headers: Record<string, string>,
  body: Record<string, unknown>,
  note: string,
) {
  const created = await run.http.send('Create a stream', `${run.base}/ssf/streams`, { json: body, headers }, [
    'SSF 1.0 §8.1.1.1: 201 with the stream configuration',
    note,
  ]);
  expectStatus(created.status, 201, 'stream creation');
  const streamId = String(created.json.stream_id);
  const added = await run.http.send(
    'Add a subject',
    `${run.base}/ssf/subjects:add`,
    { json: { stream_id: streamId, subject: SUBJECT }, headers },
    ['SSF 1.0 §8.1.3.2: default_subjects is NONE, so only added subjects are signalled'],
  );
  expectStatus(added.status, 200, 'subject');
  return streamId;
}

const emit = (run: RunContext, headers: Record<string, string>, step: string) =>
  run.http.send(
    step,
    `${run.base}/ssf/events`,
    {
      json: { event_type: `${RISC}account-disabled`, subject: SUBJECT, event: { reason: 'hijacking' } },
      headers,
    },
    ['RISC 1.0 §2.3: account-disabled, emitted here to try the stream (Portico: POST /ssf/events)'],
  );

async function poll(
  run: RunContext,
  headers: Record<string, string>,
  streamId: string,
  step: string,
  body: Record<string, unknown>,
  notes: string[],
) {
  const answer = await run.http.send(step, `${run.base}/ssf/poll/${streamId}`, { json: body, headers }, notes);
  expectStatus(answer.status, 200, 'poll');
  return answer.json.sets as Record<string, string>;
}

export function registerSsfRunners(runners: FlowRunners): void {
  runners.register('ssf', 'push-to-receiver', async (run) => {
    await discover(run);
    const headers = await managementToken(run);
    const receiver = await run.http.send(
      'Create a receiver',
      `${run.base}/ssf/receivers`,
      { json: { audience: 'machine-client' } },
      ["Portico's own RFC 8935 receiver: an endpoint and the Authorization header a transmitter must send"],
    );
    expectStatus(receiver.status, 201, 'receiver');
    const streamId = await createStream(
      run,
      headers,
      {
        delivery: {
          method: 'urn:ietf:rfc:8935',
          endpoint_url: receiver.json.endpoint_url,
          authorization_header: receiver.json.authorization_header,
        },
        events_requested: [`${RISC}account-disabled`, `${CAEP}session-revoked`],
      },
      'Push (RFC 8935) to the receiver just made',
    );
    const verify = await run.http.send(
      'Ask for verification',
      `${run.base}/ssf/verify`,
      { json: { stream_id: streamId, state: 'run' }, headers },
      ['SSF 1.0 §8.1.4.2: 204, then a verification SET carrying the state'],
    );
    expectStatus(verify.status, 204, 'verification');
    expectStatus((await emit(run, headers, 'Trigger an event')).status, 202, 'event');
    for (let attempt = 0; ; attempt++) {
      const seen = await run.http.send(
        'Read the receiver',
        `${run.base}/ssf/receivers/${stringIn(receiver, 'receiver_id')}`,
        { headers: { accept: 'application/json' } },
        [
          'Each SET checked: typ secevent+jwt, signature by the jwks_uri keys, iss, aud, jti replay; 202 or an RFC 8935 error',
        ],
      );
      const received = (seen.json.received ?? []) as Array<{ verdict: string }>;
      if (received.length >= 2) {
        if (received.some((r) => r.verdict !== 'accepted')) throw new FlowFailure('the receiver refused a SET');
        return;
      }
      if (attempt >= 20) throw new FlowFailure('the SETs did not arrive at the receiver');
      await run.wait(100);
    }
  });

  runners.register('ssf', 'poll-with-ack', async (run) => {
    await discover(run);
    const headers = await managementToken(run);
    const streamId = await createStream(
      run,
      headers,
      { events_requested: [`${RISC}account-disabled`] },
      'Poll (RFC 8936): the transmitter assigns endpoint_url',
    );
    expectStatus((await emit(run, headers, 'Trigger an event')).status, 202, 'event');
    const first = await poll(run, headers, streamId, 'Poll', { returnImmediately: true }, [
      'RFC 8936 §2.4: {sets: {jti: SET}, moreAvailable}',
    ]);
    const jtis = Object.keys(first);
    if (jtis.length !== 1) throw new FlowFailure('expected one SET');
    const again = await poll(run, headers, streamId, 'Poll again without ack', { returnImmediately: true }, [
      'Not acknowledged: delivered again',
    ]);
    if (Object.keys(again).join() !== jtis.join())
      throw new FlowFailure('an unacknowledged SET must be delivered again');
    const acked = await poll(run, headers, streamId, 'Acknowledge', { returnImmediately: true, ack: jtis }, [
      'RFC 8936 §2.4: ack; never delivered after',
    ]);
    if (Object.keys(acked).length !== 0) throw new FlowFailure('an acknowledged SET came back');
  });

  runners.register('ssf', 'pause-and-resume', async (run) => {
    const headers = await managementToken(run);
    const streamId = await createStream(
      run,
      headers,
      { events_requested: [`${RISC}account-disabled`] },
      'A poll stream',
    );
    const pause = await run.http.send(
      'Pause',
      `${run.base}/ssf/status`,
      { json: { stream_id: streamId, status: 'paused', reason: 'maintenance' }, headers },
      ['SSF 1.0 §8.1.2.2: paused holds events; a stream-updated SET says so'],
    );
    expectStatus(pause.status, 200, 'pause');
    expectStatus((await emit(run, headers, 'Trigger an event while paused')).status, 202, 'event');
    const held = await poll(run, headers, streamId, 'Poll while paused', { returnImmediately: true }, [
      'Only the stream-updated SET: the event is held',
    ]);
    const resume = await run.http.send(
      'Resume',
      `${run.base}/ssf/status`,
      { json: { stream_id: streamId, status: 'enabled' }, headers },
      ['Enabled again: held events are delivered, after a stream-updated SET'],
    );
    expectStatus(resume.status, 200, 'resume');
    const released = await poll(
      run,
      headers,
      streamId,
      'Poll after resuming',
      { returnImmediately: true, ack: Object.keys(held) },
      ['The held account-disabled SET, and the stream-updated of the resume'],
    );
    if (Object.keys(released).length !== 2) throw new FlowFailure('the held event was not delivered on resume');
  });
}
