/* Ronde's service worker: shows the notifications pushed by the server (Web Push) and
   opens the page they link to. A notification says that something waits; it never
   carries a secret. Pages are always fetched from the network (nothing is cached). */
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = {};
  }
  const title = String(data.title || "Ronde");
  const options = {
    body: String(data.body || "Du nouveau vous attend sur votre page."),
    icon: "/static/ronde/icon-192.png",
    badge: "/static/ronde/icon-192.png",
    lang: "fr",
    tag: String(data.url || "ronde"),
    data: { url: String(data.url || "/") },
  };
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data && event.notification.data.url || "/", self.location.origin);
  if (url.origin !== self.location.origin) return; // only this site's pages
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      for (const w of windows) {
        if (w.url === url.href && "focus" in w) return w.focus();
      }
      return self.clients.openWindow(url.href);
    })
  );
});
