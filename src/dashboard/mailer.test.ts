import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { createSignUpSettings } from './mailer.js';

const message = { to: 'ada@example.com', subject: 'Confirm your email address for ModelPort', text: 'Open https://dash.example.com/signup/verify#token=abc', link: 'https://dash.example.com/signup/verify#token=abc' };

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** Just enough of an SMTP server (RFC 5321, no extensions) to receive one message. */
async function startFakeSmtp() {
  const received: string[] = [];
  const server = createServer((socket: Socket) => {
    let inData = false;
    let data = '';
    let buffer = '';
    socket.write('220 fake ESMTP\r\n');
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      let end: number;
      while ((end = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            received.push(data);
            socket.write('250 queued\r\n');
          } else data += `${line}\n`;
        } else if (/^(EHLO|HELO)/i.test(line)) socket.write('250 fake\r\n');
        else if (/^DATA/i.test(line)) {
          inData = true;
          socket.write('354 go on\r\n');
        } else if (/^QUIT/i.test(line)) socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { received, port: (server.address() as AddressInfo).port, close: () => server.close() };
}

test('without a mail server, an open sign-up writes each link to the log for the operator, and says so at start', () => {
  const { logger, lines } = capturingLogger();
  const settings = createSignUpSettings({ signUp: 'open', smtp: undefined, publicUrl: undefined }, 'http://localhost:8080', logger);
  assert.equal(settings.open, true);
  assert.equal(settings.publicUrl, 'http://localhost:8080');
  assert.match(String(lines[0]?.msg), /confirmation links are written to this log/);
  settings.mailer.send(message);
  assert.equal(lines[1]?.level, 40);
  assert.equal(lines[1]?.link, message.link);
  assert.equal(lines[1]?.to, message.to);
});

test('closed by default, links point to MODELPORT_PUBLIC_URL, never elsewhere', () => {
  const { logger, lines } = capturingLogger();
  const settings = createSignUpSettings({ signUp: 'closed', smtp: undefined, publicUrl: 'https://dash.example.com' }, 'http://0.0.0.0:8080', logger);
  assert.equal(settings.open, false);
  assert.equal(settings.publicUrl, 'https://dash.example.com');
  assert.deepEqual(lines, []);
});

test('with MODELPORT_SMTP_URL, the mail goes through that server from MODELPORT_MAIL_FROM', async () => {
  const smtp = await startFakeSmtp();
  try {
    const { logger, lines } = capturingLogger();
    const settings = createSignUpSettings(
      { signUp: 'open', smtp: { url: `smtp://127.0.0.1:${smtp.port}`, from: 'ModelPort <no-reply@example.com>' }, publicUrl: 'https://dash.example.com' },
      'http://localhost:8080',
      logger,
    );
    settings.mailer.send(message);
    for (let wait = 0; wait < 100 && smtp.received.length === 0; wait += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const [mail = ''] = smtp.received;
    assert.match(mail, /^From: ModelPort <no-reply@example\.com>$/m);
    assert.match(mail, /^To: ada@example\.com$/m);
    assert.match(mail, /^Subject: Confirm your email address for ModelPort$/m);
    assert.ok(mail.includes(message.link));
    assert.deepEqual(lines, [], 'nothing logged: no link in the log when mail is sent');
  } finally {
    smtp.close();
  }
});
