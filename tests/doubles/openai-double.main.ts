/** Runs the OpenAI double as a process (npm test starts one): prints its base URL, then serves. */
import { startOpenAiDouble } from './openai-double';

void startOpenAiDouble(Number(process.argv[2] ?? 0)).then((d) => {
  process.stdout.write(`${d.url}\n`);
  const stop = () => void d.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}, (err: Error) => {
  process.stderr.write(`the double failed to start: ${err.message}\n`);
  process.exit(1);
});
