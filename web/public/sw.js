// The dashboard's service worker (issue 40): breaking alerts by Web Push. Served at /sw.js (scope
// /) by the web service, never cached (api/web/site.ts). A push carries JSON
// {title, body, url, tag, lang} (models/news/push-subscription.rules.ts pushAlertPayload); a click
// opens the article. Plain JavaScript, outside the bundle: a worker's script must keep its address.
'use strict';

/** Only web addresses open from a notification (a payload is ours, but a click must not run javascript:). */
function safeUrl(raw) {
  try {
    const url = new URL(raw, self.location.origin);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : self.location.origin + '/';
  } catch {
    return self.location.origin + '/';
  }
}

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let data;
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : '' };
  }
  if (typeof data !== 'object' || data === null) data = {};
  const title = typeof data.title === 'string' && data.title ? data.title : 'Newsletter';
  event.waitUntil(
    self.registration.showNotification(title, {
      body: typeof data.body === 'string' ? data.body : '',
      tag: typeof data.tag === 'string' ? data.tag : undefined,
      lang: typeof data.lang === 'string' ? data.lang : undefined,
      icon: '/favicon.svg',
      data: { url: safeUrl(typeof data.url === 'string' ? data.url : '/') },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = safeUrl(event.notification.data && event.notification.data.url);
  event.waitUntil(self.clients.openWindow(url));
});
