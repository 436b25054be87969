/* Ronde's scripts (no inline script or handler anywhere: the Content-Security-Policy
   allows scripts from this site only). */
"use strict";

// a table wider than a phone scrolls inside itself: it must be reachable by keyboard
function rondeScrollables() {
  for (const t of document.querySelectorAll("main table")) {
    if (t.scrollWidth > t.clientWidth + 1 && !t.hasAttribute("tabindex")) t.tabIndex = 0;
  }
}
rondeScrollables();
document.addEventListener("toggle", rondeScrollables, true);

/* the dashboard's refresh never wipes what a game master is typing: it waits while a
   field of the dashboard has the focus or holds a value that differs from the page's */
/* The refresh never wipes what a game master is typing: it waits while a field of the
   dashboard has the focus or holds a value that differs from the page's. */
window.rondeCanRefresh = function () {
  var d = document.getElementById("dashboard");
  if (!d) { return false; }
  var a = document.activeElement;
  if (a && d.contains(a) && a.matches("input, textarea, select")) { return false; }
  var fields = d.querySelectorAll("input, textarea, select");
  for (var i = 0; i < fields.length; i++) {
    var f = fields[i];
    if (f.type === "hidden" || f.type === "submit") { continue; }
    if (f.tagName === "SELECT") {
      for (var j = 0; j < f.options.length; j++) {
        if (f.options[j].selected !== f.options[j].defaultSelected) { return false; }
      }
    } else if (f.type === "checkbox" || f.type === "radio") {
      if (f.checked !== f.defaultChecked) { return false; }
    } else if (f.value !== f.defaultValue) { return false; }
  }
  return d.querySelectorAll("details[open] form").length === 0;
};
document.addEventListener("htmx:confirm", function (e) {
  var elt = e.detail && e.detail.elt;
  if (elt && elt.hasAttribute && elt.hasAttribute("data-refresh-guard") && !window.rondeCanRefresh()) {
    e.preventDefault();
  }
});

/* a select that submits its form when changed (data-autosubmit) */
document.addEventListener("change", function (e) {
  var t = e.target;
  if (t && t.matches && t.matches("[data-autosubmit]") && t.form) { t.form.submit(); }
});

/* a read-only link selected when focused, to copy it (data-select-on-focus) */
document.addEventListener("focusin", function (e) {
  var t = e.target;
  if (t && t.matches && t.matches("[data-select-on-focus]")) { t.select(); }
});

/* a form that asks before it is sent (data-confirm="question") */
document.addEventListener("submit", function (e) {
  var f = e.target;
  if (f && f.matches && f.matches("form[data-confirm]") && !window.confirm(f.dataset.confirm)) {
    e.preventDefault();
  }
}, true);

/* copy buttons (data-copy="id1 id2": the fields' texts, one blank line apart) */
document.addEventListener("click", function (e) {
  var b = e.target.closest("[data-copy]");
  if (!b) return;
  var ids = b.dataset.copy.split(" ");
  var text = ids.map(function (id) { return document.getElementById(id).value; }).join("\n\n");
  function done() { b.dataset.label = b.dataset.label || b.textContent; b.textContent = "Copié ✓"; }
  function fallback() {
    var t = document.getElementById(ids[0]);
    var keep = t.value; t.value = text; t.select(); document.execCommand("copy"); t.value = keep; done();
  }
  if (navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(text).then(done, fallback); } else { fallback(); }
});
