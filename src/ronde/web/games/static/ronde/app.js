/* The installable web app: every page registers the service worker (it only shows the
   notifications pushed to this browser; see sw.js). */
"use strict";
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}
