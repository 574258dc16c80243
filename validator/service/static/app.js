// deckcheck page: paste or open a decklist, POST it to v1/validate, show the verdict, the
// problems with their citations, and highlight a problem's lines in a numbered listing.
// URLs are relative so the page works behind a reverse proxy under a path prefix.
"use strict";

const $ = (id) => document.getElementById(id);
const form = $("check-form"), textarea = $("decklist"), fileInput = $("file");
const formatSelect = $("format"), commanderFields = $("commander-fields");
const errorBox = $("error"), result = $("result"), verdict = $("verdict");
let formats = {};
let fileName = null; // the opened file's name: helps format detection, becomes the source
let checkedLines = []; // the lines of the list as checked (problem line numbers refer to them)

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = !message;
}

const isCommanderFamily = (fmt) => fmt && (fmt.kind === "commander" || fmt.kind === "oathbreaker");

function updateCommanderFields() {
  const fmt = formats[formatSelect.value];
  const show = isCommanderFamily(fmt);
  commanderFields.hidden = !show;
  if (show) {
    const oath = fmt.kind === "oathbreaker";
    $("commander1-label").textContent = oath ? "Oathbreaker" : "Commander";
    $("commander2-label").textContent = oath ? "Second oathbreaker (partners)" : "Partner or background";
  }
  try { localStorage.setItem("deckcheck-format", formatSelect.value); } catch (e) { /* private mode */ }
}

async function loadFormats() {
  const help = $("format-help");
  help.hidden = false;
  try {
    const response = await fetch("v1/formats");
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    formats = await response.json();
  } catch (e) {
    help.textContent = `Could not load the formats (${e.message}); reload the page.`;
    return;
  }
  help.hidden = true;
  const groups = { constructed: el("optgroup", { label: "Constructed" }),
                   commander: el("optgroup", { label: "Commander family" }) };
  for (const [key, fmt] of Object.entries(formats)) {
    const group = isCommanderFamily(fmt) ? groups.commander : groups.constructed;
    group.append(el("option", { value: key, text: fmt.name }));
  }
  formatSelect.replaceChildren(groups.constructed, groups.commander);
  let saved = null;
  try { saved = localStorage.getItem("deckcheck-format"); } catch (e) { /* private mode */ }
  formatSelect.value = saved && formats[saved] ? saved : (formats.modern ? "modern" : Object.keys(formats)[0]);
  updateCommanderFields();
}

function requestBody() {
  const body = { decklist: textarea.value, format: formatSelect.value };
  if (fileName) body.filename = fileName;
  if (isCommanderFamily(formats[formatSelect.value])) {
    const commanders = [$("commander1").value, $("commander2").value].map((s) => s.trim()).filter(Boolean);
    if (commanders.length) body.commanders = commanders;
    if ($("bracket").value) body.bracket = Number($("bracket").value);
  }
  return body;
}

async function check(event) {
  if (event) event.preventDefault();
  showError("");
  if (!textarea.value.trim()) {
    showError("Paste a decklist or open a file first.");
    textarea.focus();
    return;
  }
  if (!formats[formatSelect.value]) {
    showError("Choose a format.");
    formatSelect.focus();
    return;
  }
  const button = $("check");
  button.disabled = true;
  button.textContent = "Checking…";
  const body = requestBody();
  try {
    const response = await fetch("v1/validate", {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      showError(data && data.detail ? data.detail : `The server answered ${response.status}.`);
      return;
    }
    checkedLines = body.decklist.split(/\r\n|\r|\n/);
    if (checkedLines.length > 1 && checkedLines[checkedLines.length - 1] === "") checkedLines.pop();
    render(data);
  } catch (e) {
    showError(`Could not reach the server (${e.message}).`);
  } finally {
    button.disabled = false;
    button.textContent = "Check";
  }
}

function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

// "Did you mean" is asked of the server (one GET v1/cards each) for the first unknown names
// only, as the CLI suggests for the first 20 (validator.resolve.MAX_SUGGESTED_NAMES): a paste
// of thousands of unknown lines must not cost the server a lookup each.
const MAX_SUGGESTED_NAMES = 20;
let suggestionsLeft = 0;

function render(report) {
  result.hidden = false;
  suggestionsLeft = MAX_SUGGESTED_NAMES;
  verdict.className = `verdict ${report.legal ? "legal" : "illegal"}`;
  verdict.textContent = `${report.legal ? "✓ Legal" : "✗ Not legal"} in ${report.format_name}`;
  const deck = report.deck, parts = [`${deck.main} main deck`];
  if (deck.sideboard) parts.push(`${deck.sideboard} sideboard`);
  if (deck.commanders.length) parts.push(`commander: ${deck.commanders.join(" and ")}`);
  if (deck.companion) parts.push(`companion: ${deck.companion}`);
  parts.push(`${plural(report.counts.error, "error")}, ${plural(report.counts.warning, "warning")}`);
  $("summary").textContent = parts.join(" · ");

  renderListing();
  const problems = report.problems.filter((p) => p.severity !== "info");
  const notes = report.problems.filter((p) => p.severity === "info");
  $("problems").replaceChildren(...problems.map(problemItem));
  if (!problems.length) $("problems").append(el("li", { class: "none", text: "No problems." }));
  $("problems-help").hidden = !problems.some((p) => p.lines && p.lines.length);
  $("notes").replaceChildren(...notes.map(problemItem));
  $("notes-box").hidden = !notes.length;
  $("notes-heading").textContent = `Notes (${notes.length})`;
  verdict.focus();
}

function renderListing() {
  const items = checkedLines.map((text, i) => el("li", { "data-line": String(i + 1) },
    el("span", { class: "ln", "aria-hidden": "true", text: String(i + 1) }),
    el("span", { class: "tx", text: text || " " })));
  $("listing").replaceChildren(...items);
}

function highlight(lines, button) {
  for (const node of document.querySelectorAll(".listing li.hl")) node.classList.remove("hl");
  for (const node of document.querySelectorAll(".problem-button[aria-pressed=true]")) {
    node.setAttribute("aria-pressed", "false");
  }
  button.setAttribute("aria-pressed", "true");
  let first = null;
  for (const line of lines) {
    const node = document.querySelector(`.listing li[data-line="${line}"]`);
    if (node) { node.classList.add("hl"); first = first || node; }
  }
  if (first) first.scrollIntoView({ block: "center", behavior: "smooth" });
}

function problemItem(problem) {
  const lines = problem.lines || [];
  const where = lines.length ? `line${lines.length > 1 ? "s" : ""} ${lines.join(", ")}` : "";
  const content = [
    el("span", { class: `sev ${problem.severity}`, text: problem.severity }), " ",
    el("span", { class: "msg", text: problem.message }),
  ];
  if (problem.citation) content.push(" ", el("span", { class: "cite", text: problem.citation }));
  if (where) content.push(" ", el("span", { class: "where", text: `(${where})` }));
  const item = el("li", { class: `problem ${problem.severity}`, "data-code": problem.code });
  if (lines.length) {
    const button = el("button", { type: "button", class: "problem-button", "aria-pressed": "false",
                                  "aria-controls": "listing" }, ...content);
    button.addEventListener("click", () => highlight(lines, button));
    item.append(button);
  } else {
    item.append(el("div", { class: "problem-text" }, ...content));
  }
  if (problem.code === "unknown-card" && problem.cards.length && suggestionsLeft > 0) {
    suggestionsLeft -= 1;
    addSuggestions(item, problem);
  }
  return item;
}

async function addSuggestions(item, problem) {
  const name = problem.cards[0];
  let data = null;
  try {
    const response = await fetch(`v1/cards/${encodeURIComponent(name)}`);
    data = await response.json();
  } catch (e) { return; }
  if (!data || !data.suggestions || !data.suggestions.length) return;
  const box = el("div", { class: "suggest" }, "Did you mean ");
  data.suggestions.forEach((suggestion, i) => {
    if (i) box.append(" or ");
    const button = el("button", { type: "button", class: "fix", text: suggestion,
                                  "aria-label": `Replace ${name} with ${suggestion} and check again` });
    button.addEventListener("click", () => replaceName(problem.lines, name, suggestion));
    box.append(button);
  });
  box.append("?");
  item.append(box);
}

function replaceName(lines, name, suggestion) {
  const all = textarea.value.split(/\r\n|\r|\n/);
  const targets = lines.length ? lines.map((n) => n - 1) : all.map((_, i) => i);
  for (const i of targets) {
    if (all[i] !== undefined && all[i].includes(name)) all[i] = all[i].replace(name, suggestion);
  }
  textarea.value = all.join("\n");
  check();
}

fileInput.addEventListener("change", () => {
  const file = fileInput.files[0];
  if (!file) return;
  if (file.size > 4000000) {  // decklist.MAX_BYTES: a JSON export; text, CSV and XML 1 MB
    showError(`${file.name} is over 4 MB; a decklist is at most 4 MB (a JSON export; 1 MB otherwise).`);
    return;
  }
  const reader = new FileReader();
  reader.onload = () => {
    textarea.value = reader.result;
    fileName = file.name;
    showError("");
    textarea.focus();
  };
  reader.onerror = () => showError(`Could not read ${file.name}.`);
  reader.readAsText(file); // BOM-sniffed: UTF-16 .dek files read correctly
});
textarea.addEventListener("input", () => { if (!textarea.value) fileName = null; });
textarea.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) check(event);
});
formatSelect.addEventListener("change", updateCommanderFields);
form.addEventListener("submit", check);
loadFormats();
