// The hosted service's official Node SDK (npm resend, pinned in
// package.json) against a shush service: every webhooks call of the SDK,
// and a real delivery checked with the SDK's own verify. The SDK reads the
// service and the key from RESEND_BASE_URL and RESEND_API_KEY itself.
// Exits 1 with the first mismatch.
import http from 'node:http';
import { Resend } from 'resend';

const deadlineMs = 30_000;

function fail(msg) {
  console.error(`resend-node interop: ${msg}`);
  process.exit(1);
}

// must unwraps the SDK's {data, error} answer.
function must(what, res) {
  if (res.error) fail(`${what}: the SDK reported ${JSON.stringify(res.error)}`);
  if (!res.data) fail(`${what}: no data in the answer`);
  return res.data;
}

function check(what, cond, got) {
  if (!cond) fail(`${what}: got ${JSON.stringify(got)}`);
}

// A receiver on loopback that keeps every delivery (raw body and headers)
// and answers 200.
function startReceiver() {
  const deliveries = [];
  const waiters = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
      for (const w of waiters.splice(0)) w();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      // wait(n) resolves once n deliveries have come, or fails the run.
      const wait = (n, what) =>
        new Promise((ok) => {
          const timer = setTimeout(() => fail(`${what}: no delivery within ${deadlineMs / 1000} s (got ${deliveries.length})`), deadlineMs);
          const look = () => {
            if (deliveries.length >= n) {
              clearTimeout(timer);
              ok(deliveries[n - 1]);
            } else waiters.push(look);
          };
          look();
        });
      resolve({ server, deliveries, wait, url: `http://127.0.0.1:${server.address().port}/hooks/shush` });
    });
  });
}

// verify calls the SDK's verify with the svix-* headers as a receiver reads
// them; it throws when the delivery does not verify.
function verify(resend, d, secret, body = d.body) {
  return resend.webhooks.verify({
    payload: body,
    headers: { id: d.headers['svix-id'], timestamp: d.headers['svix-timestamp'], signature: d.headers['svix-signature'] },
    webhookSecret: secret,
  });
}

function refused(what, fn) {
  let threw = false;
  try {
    fn();
  } catch {
    threw = true;
  }
  check(`${what} must be refused`, threw, 'verified');
}

async function until(what, fn) {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) fail(`${what}: not within ${deadlineMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main() {
  const base = process.env.RESEND_BASE_URL;
  if (!base || !process.env.RESEND_API_KEY) fail('set RESEND_BASE_URL and RESEND_API_KEY to the shush service and a read-write key');
  // The SDK joins the base URL and paths that start with "/" as strings.
  if (base.endsWith('/')) fail(`RESEND_BASE_URL ${base} ends in "/": the Node SDK would ask for "//webhooks"; leave the slash out`);

  const resend = new Resend();
  const rx = await startReceiver();
  const stamp = Date.now();
  const addrOff = `off-${stamp}@example.com`;
  const addrOn = `on-${stamp}@example.com`;

  // create, list, get
  const created = must('webhooks.create', await resend.webhooks.create({ endpoint: rx.url, events: ['suppression.added'] }));
  check('create answers object webhook', created.object === 'webhook' && created.id, created);
  check('create answers a whsec_ secret', /^whsec_[A-Za-z0-9+/]{32}$/.test(created.signing_secret || ''), created.object);
  const id = created.id;
  const secret = created.signing_secret;

  const list = must('webhooks.list', await resend.webhooks.list({ limit: 100 }));
  const item = list.data.find((w) => w.id === id);
  check('list holds the new webhook, enabled, with its events', list.object === 'list' && item && item.status === 'enabled' && item.endpoint === rx.url && item.events.join() === 'suppression.added' && item.created_at, list);
  check('list items carry no secret', !('signing_secret' in item), Object.keys(item));

  let got = must('webhooks.get', await resend.webhooks.get(id));
  check('get answers the webhook with its secret', got.object === 'webhook' && got.id === id && got.endpoint === rx.url && got.status === 'enabled' && got.signing_secret === secret, { ...got, signing_secret: got.signing_secret === secret ? 'same' : 'other' });

  // update: the events, then disable and enable
  const upd = must('webhooks.update events', await resend.webhooks.update(id, { events: ['suppression.added', 'suppression.removed'] }));
  check('update answers object webhook and the id', upd.object === 'webhook' && upd.id === id, upd);
  got = must('webhooks.get after update', await resend.webhooks.get(id));
  check('events replaced', got.events.slice().sort().join() === 'suppression.added,suppression.removed', got.events);

  must('webhooks.update disable', await resend.webhooks.update(id, { status: 'disabled' }));
  got = must('webhooks.get after disable', await resend.webhooks.get(id));
  check('disabled', got.status === 'disabled', got.status);
  // A change while the webhook is disabled makes no event.
  must('suppressions.add while disabled', await resend.suppressions.add({ email: addrOff }));
  must('webhooks.update enable', await resend.webhooks.update(id, { status: 'enabled' }));
  got = must('webhooks.get after enable', await resend.webhooks.get(id));
  check('enabled again', got.status === 'enabled', got.status);

  // A suppression added through the SDK is delivered and verifies.
  const added = must('suppressions.batch.add', await resend.suppressions.batch.add({ emails: [addrOn] }));
  check('batch add answers one entry', added.data && added.data.length === 1 && added.data[0].id, added);
  const d1 = await rx.wait(1, 'the suppression.added delivery');
  check('delivery is a JSON POST', d1.method === 'POST' && d1.url === '/hooks/shush' && /^application\/json/.test(d1.headers['content-type'] || ''), { method: d1.method, url: d1.url, type: d1.headers['content-type'] });
  for (const h of ['id', 'timestamp', 'signature']) {
    check(`webhook-${h} repeats svix-${h}`, d1.headers[`webhook-${h}`] === d1.headers[`svix-${h}`], [d1.headers[`webhook-${h}`], d1.headers[`svix-${h}`]]);
  }
  const payload = verify(resend, d1, secret);
  check('the delivery is the suppression.added of the address added while enabled', payload.type === 'suppression.added' && payload.data && payload.data.email === addrOn && payload.data.id === added.data[0].id && payload.data.origin === 'manual' && payload.data.source_id === null && payload.created_at && payload.data.created_at, payload);

  refused('a tampered body', () => verify(resend, d1, secret, d1.body.replace(addrOn, `x${addrOn}`)));
  refused('another secret', () => verify(resend, d1, 'whsec_' + Buffer.alloc(24, 7).toString('base64')));
  refused('a moved timestamp', () =>
    resend.webhooks.verify({ payload: d1.body, headers: { id: d1.headers['svix-id'], timestamp: String(Number(d1.headers['svix-timestamp']) + 1), signature: d1.headers['svix-signature'] }, webhookSecret: secret }),
  );

  // The deliveries API: one event (none for the change made while disabled), its attempt.
  const events = await until('the event settles as success', async () => {
    const page = must('webhooks.events.list', await resend.webhooks.events.list({ webhookId: id }));
    return page.data.length === 1 && page.data[0].status === 'success' ? page : null;
  });
  const ev = events.data[0];
  check('the event is the delivery', ev.id === d1.headers['svix-id'] && ev.type === 'suppression.added', ev);
  const one = must('webhooks.events.get', await resend.webhooks.events.get({ webhookId: id, eventId: ev.id }));
  check('event answers its payload, nothing more due', one.object === 'webhook_event' && one.status === 'success' && one.next_attempt_at === null && one.payload.data.email === addrOn, one);
  const attempts = must('webhooks.events.attempts.list', await resend.webhooks.events.attempts.list({ webhookId: id, eventId: ev.id }));
  check('one attempt, answered 200 ok', attempts.data.length === 1 && attempts.data[0].http_status_code === 200 && attempts.data[0].response === 'ok' && attempts.data[0].sent_at, attempts);

  // Replay: the same event id once more.
  const rp = must('webhooks.events.replay', await resend.webhooks.events.replay({ webhookId: id, eventId: ev.id }));
  check('replay answers the event', rp.object === 'webhook_event' && rp.id === ev.id, rp);
  const d2 = await rx.wait(2, 'the replayed delivery');
  check('a replay carries the same id and body', d2.headers['svix-id'] === ev.id && d2.body === d1.body, d2.headers['svix-id']);
  verify(resend, d2, secret);

  // Rotation: the next delivery carries the new and the old signature.
  const rot = must('webhooks.rotateSigningSecret', await resend.webhooks.rotateSigningSecret(id));
  check('rotate answers a new secret', rot.object === 'webhook' && rot.id === id && /^whsec_/.test(rot.signing_secret) && rot.signing_secret !== secret, rot.object);
  must('suppressions.remove', await resend.suppressions.remove(addrOn));
  const d3 = await rx.wait(3, 'the suppression.removed delivery');
  check('two signatures after a rotation', d3.headers['svix-signature'].split(' ').length === 2, d3.headers['svix-signature'].split(' ').length);
  const removed = verify(resend, d3, rot.signing_secret);
  verify(resend, d3, secret);
  check('the delivery is the suppression.removed', removed.type === 'suppression.removed' && removed.data.email === addrOn, removed);

  // remove, then the webhook is gone.
  const del = must('webhooks.remove', await resend.webhooks.remove(id));
  check('remove answers deleted', del.object === 'webhook' && del.id === id && del.deleted === true, del);
  const gone = await resend.webhooks.get(id);
  check('get after remove is not_found', gone.error && gone.error.name === 'not_found' && gone.error.statusCode === 404, gone.error);

  must('suppressions.remove (clean up)', await resend.suppressions.remove(addrOff));
  rx.server.close();
  console.log('resend-node interop: every webhooks call answered as the SDK expects, and its verify accepted the deliveries');
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));
