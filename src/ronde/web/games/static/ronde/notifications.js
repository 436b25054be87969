/* The notifications page: turn Web Push on for this browser (service worker, permission,
   subscription sent to the server), or off. No inline script: the server's public key and
   the addresses come from data- attributes. */
"use strict";

(function () {
  const box = document.getElementById("push-device");
  if (!box) return;
  const status = document.getElementById("push-status");
  const on = document.getElementById("push-on");
  const off = document.getElementById("push-off");
  const say = (text) => { status.textContent = text; };

  function csrf() {
    const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (m) return decodeURIComponent(m[1]);
    const input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function keyBytes(b64) {
    const pad = "=".repeat((4 - (b64.length % 4)) % 4);
    const raw = atob((b64 + pad).replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(raw, (c) => c.charCodeAt(0));
  }

  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !window.isSecureContext) {
    say(box.dataset.unsupported);
    on.disabled = true;
    return;
  }

  async function registration() {
    await navigator.serviceWorker.register("/sw.js", { scope: "/" });
    return navigator.serviceWorker.ready;
  }

  async function current() {
    const reg = await registration();
    box.dataset.registered = "1";
    return reg.pushManager.getSubscription();
  }

  current().then((sub) => {
    if (sub) { say(box.dataset.active); off.hidden = false; }
  }).catch(() => {});

  on.addEventListener("click", async () => {
    on.disabled = true;
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") { say(box.dataset.denied); return; }
      const reg = await registration();
      let sub = await reg.pushManager.getSubscription();
      if (!sub) {
        sub = await reg.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: keyBytes(box.dataset.key),
        });
      }
      const answer = await fetch(box.dataset.subscribe, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
        body: JSON.stringify(sub.toJSON()),
      });
      const data = await answer.json();
      say(data.message || (answer.ok ? box.dataset.active : box.dataset.failed));
      if (answer.ok) off.hidden = false;
    } catch (e) {
      say(box.dataset.failed);
    } finally {
      on.disabled = false;
    }
  });

  off.addEventListener("click", async () => {
    try {
      const reg = await registration();
      const sub = await reg.pushManager.getSubscription();
      if (sub) {
        const body = new URLSearchParams({ endpoint: sub.endpoint });
        await fetch(box.dataset.unsubscribe, {
          method: "POST",
          credentials: "same-origin",
          headers: { "X-CSRFToken": csrf() },
          body,
        });
        await sub.unsubscribe();
      }
      say(box.dataset.stopped);
      off.hidden = true;
    } catch (e) {
      say(box.dataset.failed);
    }
  });
})();
