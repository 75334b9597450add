/**
 * Runs the WhatsApp Cloud API double as a process (npm test, and npm start without real
 * credentials): serves on the port given, accepting WHATSAPP_ACCESS_TOKEN for WHATSAPP_PHONE_NUMBER_ID;
 * prints its base URL.
 */
import { startWhatsAppDouble } from './whatsapp-double';

const accessToken = process.env.WHATSAPP_ACCESS_TOKEN;
const phoneNumberId = process.env.WHATSAPP_PHONE_NUMBER_ID;
if (!accessToken || !phoneNumberId) {
  process.stderr.write('WHATSAPP_ACCESS_TOKEN and WHATSAPP_PHONE_NUMBER_ID are needed\n');
  process.exit(78);
}
void startWhatsAppDouble(Number(process.argv[2] ?? 0), { accessToken, phoneNumberIds: [phoneNumberId] }).then((d) => {
  process.stdout.write(`${d.url}\n`);
  const stop = () => void d.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}, (err: Error) => {
  process.stderr.write(`the double failed to start: ${err.message}\n`);
  process.exit(1);
});
