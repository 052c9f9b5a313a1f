// Keyboard shortcuts for the review page. No inline script anywhere: the page's
// Content-Security-Policy allows scripts from this origin's files only.
"use strict";
(function () {
  const page = document.body.dataset.page;
  const typing = (el) => el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT");
  const rows = Array.from(document.querySelectorAll("#queue tbody tr"));
  let current = 0;
  const select = (i) => {
    if (!rows.length) return;
    rows[current].classList.remove("selected");
    current = Math.max(0, Math.min(rows.length - 1, i));
    rows[current].classList.add("selected");
    rows[current].scrollIntoView({ block: "nearest" });
  };
  if (rows.length) select(0);
  const submit = (action) => {
    const form = document.getElementById("decide");
    const button = document.getElementById(action);
    const who = document.getElementById("reviewer");
    if (who && !who.value.trim()) {
      // a shortcut would submit nothing (the name is required): say so, and go there
      document.getElementById("need-reviewer").hidden = false;
      who.focus();
      return;
    }
    if (form && button) form.requestSubmit(button);
  };
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (typing(document.activeElement)) {
      if (ev.key === "Escape") document.activeElement.blur();
      return;
    }
    const key = ev.key;
    if (key === "?") { document.getElementById("help").hidden = !document.getElementById("help").hidden; return; }
    if (page === "queue") {
      if (key === "j") select(current + 1);
      else if (key === "k") select(current - 1);
      else if ((key === "Enter" || key === "o") && rows.length) window.location.assign(rows[current].dataset.href);
      else return;
    } else if (page === "row") {
      if (key === "e") document.getElementById("reference").focus();
      else if (key === "a") submit("accept");
      else if (key === "x") submit("reject");  // with the reason chosen (check was wrong unless changed)
      else if (key === "u") window.location.assign(document.getElementById("back").href);
      else if (key === "n") window.location.assign(document.getElementById("back").href);
      else return;
    } else return;
    ev.preventDefault();
  });
  // the reject button says which reason it records
  const reason = document.getElementById("reason");
  const shown = document.getElementById("reject-reason");
  if (reason && shown) {
    const update = () => { shown.textContent = reason.options[reason.selectedIndex].text; };
    reason.addEventListener("change", update);
    update();
  }
  // remember the reviewer's name on this browser (not a secret)
  const who = document.getElementById("reviewer");
  if (who) {
    who.value = who.value || window.localStorage.getItem("ragmon.reviewer") || "";
    who.addEventListener("change", () => window.localStorage.setItem("ragmon.reviewer", who.value));
    document.getElementById("decide").addEventListener("submit", () => window.localStorage.setItem("ragmon.reviewer", who.value));
  }
})();
