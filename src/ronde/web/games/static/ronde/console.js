/* The console's work lists (no inline script: a Content-Security-Policy applies; the
   copy buttons are ronde.js's).

   - form[data-swap="ID"]: posted by fetch; the element ID of the page (and each
     [data-swap-too] element) is replaced by the same element of the answer, so the
     game master keeps his place. Without JavaScript, or if anything fails, the form
     posts as usual and the page comes back at the form's anchor. An answer without
     that element (a confirmation to give, an error page) replaces the whole page. */
(function () {
  "use strict";

  function note(text) {
    var el = document.getElementById("swap-note");
    if (!el || !text) { return; }
    el.textContent = text;
    el.hidden = false;
    clearTimeout(note.timer);
    note.timer = setTimeout(function () { el.hidden = true; }, 6000);
  }

  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-swap") || !window.fetch || !window.DOMParser) {
      return;
    }
    var id = form.getAttribute("data-swap");
    var target = document.getElementById(id);
    if (!target || form.dataset.sending) { return; }
    e.preventDefault();
    var data = new FormData(form);
    if (e.submitter && e.submitter.name) { data.append(e.submitter.name, e.submitter.value); }
    form.dataset.sending = "1";
    var buttons = form.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    target.setAttribute("aria-busy", "true");
    fetch(form.action, { method: "POST", body: data, credentials: "same-origin", headers: { "X-Ronde-Swap": id } })
      .then(function (r) { return r.text().then(function (t) { return { ok: r.ok, text: t }; }); })
      .then(function (res) {
        var doc = new DOMParser().parseFromString(res.text, "text/html");
        var fresh = doc.getElementById(id);
        if (!res.ok || !fresh) {
          document.open(); document.write(res.text); document.close();
          return;
        }
        var x = window.scrollX, y = window.scrollY;
        target.replaceWith(document.adoptNode(fresh));
        document.querySelectorAll("[data-swap-too]").forEach(function (el) {
          var other = doc.getElementById(el.id);
          if (other) { el.replaceWith(document.adoptNode(other)); }
        });
        window.scrollTo(x, y);
        var said = [];
        doc.querySelectorAll("main .messages li").forEach(function (li) { said.push(li.textContent.trim()); });
        note(said.join(" "));
      })
      .catch(function () {
        delete form.dataset.sending;
        buttons.forEach(function (b) { b.disabled = false; });
        target.removeAttribute("aria-busy");
        HTMLFormElement.prototype.submit.call(form);
      });
  });
})();
