/**
 * The mail receiver (issue 39) on the test stack's MinIO and MongoDB: one built in-process on free
 * ports, one run from its entry point as a process, an SMTP/LMTP dialogue written line by line
 * (to say exactly what nodemailer would not: a declared SIZE over the limit, a message left
 * unfinished), and the bucket and collection read back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { loadConfig, type Config } from '../../models/config';
import type { Logger } from '../../models/infra/logger';
import { connectMongo, type MongoHandle } from '../../models/infra/mongo';
import { createStorage, ensureBucket, type Storage } from '../../models/infra/storage';
import { createInboundMailRepo, INBOUND_MAIL_COLLECTION, type InboundMailDoc, type InboundMailRepo } from '../../models/support/inbound-mail.repo';
import { createMailReceiver, type MailReceiverDeps, type MailReceiverOptions } from '../../api/mail/receiver';
import { freePort } from '../../ops/dev-services';
import { smtpGreets } from '../../ops/processes';
import { ROOT } from './processes';

/** A logger that keeps what it was told (a test may look), printing nothing. */
export function quietLogger(): Logger & { lines: { level: string; obj: unknown; msg?: string }[] } {
  const lines: { level: string; obj: unknown; msg?: string }[] = [];
  const at = (level: string) => (obj: unknown, msg?: string) => void lines.push({ level, obj, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug'), fatal: at('fatal'), trace: at('trace') } as unknown as Logger & { lines: typeof lines };
}

export interface MailStack {
  config: Config;
  mongo: MongoHandle;
  storage: Storage;
  repo: InboundMailRepo;
  close(): Promise<void>;
}

/** The test stack's MongoDB and MinIO (its bucket made), and the inbound mail repository on them. */
export async function mailStack(): Promise<MailStack> {
  const config = loadConfig();
  const mongo = connectMongo(config);
  await mongo.ready;
  const storage = createStorage(config);
  await ensureBucket(storage, config.minio.region);
  const repo = createInboundMailRepo(mongo.conn);
  await repo.ensureIndexes();
  return { config, mongo, storage, repo, close: () => mongo.close() };
}

export interface TestReceiver {
  smtpPort: number;
  lmtpPort: number;
  logger: ReturnType<typeof quietLogger>;
  close(): Promise<void>;
}

/** A receiver in this process on free ports, with the stack's deps unless `deps` replaces some. */
export async function startTestReceiver(stack: MailStack, deps: Partial<MailReceiverDeps> = {}, options: Partial<MailReceiverOptions> = {}): Promise<TestReceiver> {
  const logger = quietLogger();
  const receiver = createMailReceiver(
    { inbound: stack.repo, storage: stack.storage, handOver: async () => undefined, logger, ...deps },
    {
      host: '127.0.0.1',
      smtpPort: 0,
      lmtpPort: 0,
      maxBytes: stack.config.support.mail.inbound.maxBytes,
      deskAddress: stack.config.support.mail.address,
      closeTimeoutMs: 2_000,
      ...options,
    },
  );
  const ports = await receiver.listen();
  return { ...ports, logger, close: () => receiver.close() };
}

/** The records whose sender is `mailFrom` (each test sends from an address of its own). */
export async function recordsFrom(stack: MailStack, mailFrom: string): Promise<InboundMailDoc[]> {
  return await stack.mongo.conn.db!.collection<InboundMailDoc>(INBOUND_MAIL_COLLECTION).find({ 'envelope.mailFrom': mailFrom }).toArray();
}

/** Every object key under `prefix` in the bucket. */
export async function objectKeys(storage: Storage, prefix = 'inbound-mail/'): Promise<string[]> {
  const keys: string[] = [];
  const stream = storage.client.listObjectsV2(storage.bucket, prefix, true);
  for await (const item of stream as AsyncIterable<{ name?: string }>) if (item.name) keys.push(item.name);
  return keys.sort();
}

/** Multipart uploads started and neither completed nor aborted under `prefix`. */
export async function incompleteUploads(storage: Storage, prefix = 'inbound-mail/'): Promise<string[]> {
  const keys: string[] = [];
  const stream = storage.client.listIncompleteUploads(storage.bucket, prefix, true);
  for await (const item of stream as AsyncIterable<{ key: string }>) keys.push(item.key);
  return keys;
}

export async function readObject(storage: Storage, key: string): Promise<Buffer> {
  const body = await storage.client.getObject(storage.bucket, key);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface Reply {
  code: number;
  /** The reply's lines, the code and separator taken off (`2.6.0 OK: queued as …`). */
  lines: string[];
  text: string;
}

/**
 * An SMTP or LMTP conversation, line by line. `command` sends a line and waits for one reply,
 * `replies(n)` for n (LMTP answers DATA once per recipient); `dataLines` dot-stuffs.
 */
export class Dialogue {
  private buffer = '';
  private readonly pending: Reply[] = [];
  private waiters: (() => void)[] = [];
  private closed = false;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('latin1');
      for (let end = this.buffer.indexOf('\r\n'); end >= 0; end = this.buffer.indexOf('\r\n')) {
        this.take(this.buffer.slice(0, end));
        this.buffer = this.buffer.slice(end + 2);
      }
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  private lines: string[] = [];
  private take(line: string): void {
    this.lines.push(line.slice(4));
    if (line[3] === '-') return;
    const lines = this.lines;
    this.lines = [];
    this.pending.push({ code: Number(line.slice(0, 3)), lines, text: lines.join('\n') });
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  static async open(port: number, host = '127.0.0.1'): Promise<{ dialogue: Dialogue; greeting: Reply }> {
    const socket = net.connect({ port, host });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const dialogue = new Dialogue(socket);
    const [greeting] = await dialogue.replies(1);
    return { dialogue, greeting: greeting! };
  }

  /** The next `n` replies (rejects when the connection closes first, or after 30 s). */
  async replies(n: number, timeoutMs = 30_000): Promise<Reply[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending.length < n) {
      if (this.closed) throw new Error(`connection closed after ${this.pending.length} of ${n} replies`);
      if (Date.now() > deadline) throw new Error(`no reply within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200).unref();
      });
    }
    return this.pending.splice(0, n);
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  async command(line: string): Promise<Reply> {
    this.write(`${line}\r\n`);
    return (await this.replies(1))[0]!;
  }

  /** A message's bytes as DATA carries them: lines starting with a dot get another. */
  static dotStuffed(message: Buffer): Buffer {
    return Buffer.from(message.toString('latin1').replace(/(^|\r\n)\./g, '$1..'), 'latin1');
  }

  /** Sends the message and the end of DATA (after the 354), and waits for `n` replies. */
  async data(message: Buffer, n = 1): Promise<Reply[]> {
    this.write(Dialogue.dotStuffed(message));
    this.write(message.subarray(-2).toString() === '\r\n' ? '.\r\n' : '\r\n.\r\n');
    return await this.replies(n, 120_000);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A message of `size` bytes or a little more: headers, then lines of text, CRLF throughout. */
export function messageOfSize(size: number, subject = 'big'): Buffer {
  const head = `From: big@example.org\r\nTo: support@localhost\r\nSubject: ${subject}\r\nMessage-ID: <${Date.now()}.${Math.random()}@example.org>\r\n\r\n`;
  const line = `${'x'.repeat(76)}\r\n`;
  return Buffer.from(head + line.repeat(Math.ceil(Math.max(0, size - head.length) / line.length)));
}

export interface ReceiverProcess {
  child: ChildProcess;
  smtpPort: number;
  lmtpPort: number;
  logs(): string;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<number | NodeJS.Signals | null>;
}

/** The receiver from its entry point (api/mail/server.ts) on free ports, resolved once SMTP greets. */
export async function startReceiverProcess(env: NodeJS.ProcessEnv = {}): Promise<ReceiverProcess> {
  const smtpPort = await freePort();
  const lmtpPort = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'api/mail/server.ts')], {
    cwd: ROOT,
    env: { ...process.env, SUPPORT_MAIL_SMTP_PORT: String(smtpPort), SUPPORT_MAIL_LMTP_PORT: String(lmtpPort), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  child.stdout!.on('data', (d: Buffer) => (logs += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (logs += d.toString()));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  for (let i = 0; !(await smtpGreets(smtpPort)); i += 1) {
    if (child.exitCode !== null) throw new Error(`the mail receiver exited with ${child.exitCode}:\n${logs}`);
    if (i > 600) {
      child.kill('SIGKILL');
      throw new Error(`the mail receiver did not greet within 60 s:\n${logs}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, smtpPort, lmtpPort, logs: () => logs, exited };
}
