// deckcheck page: paste or open a decklist, POST it to v1/validate, show the verdict, the
// problems with their citations, and highlight a problem's lines in a numbered listing.
// URLs are relative so the page works behind a reverse proxy under a path prefix.
"use strict";

const $ = (id) => document.getElementById(id);
const form = $("check-form"), textarea = $("decklist"), fileInput = $("file");
const formatSelect = $("format"), commanderFields = $("commander-fields");
const errorBox = $("error"), result = $("result"), verdict = $("verdict");
let formats = {};
// The library's decklist limit (validator.decklist.MAX_BYTES), written into the page by the
// server: the page refuses what the server would refuse, in the same words.
const MAX_BYTES = Number(form.dataset.maxBytes) || 1000000;
// The opened file, sent as itself (multipart/form-data, decoded by the server as the CLI
// decodes a file: a windows-1252 .dek, a UTF-16 one) while the list still holds its unedited
// text; any edit drops it, and the text is sent instead, without the file's name (a typed
// text list sent as "mydeck.json" would be read as JSON).
let loadedFile = null, loadedText = null;
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
  // Below a long form on a phone: brought into view, or a tap on Check seems to do nothing.
  if (message) errorBox.scrollIntoView({ block: "nearest" });
}

const isCommanderFamily = (fmt) => fmt && (fmt.kind === "commander" || fmt.kind === "oathbreaker");

function updateCommanderFields() {
  const fmt = formats[formatSelect.value];
  const show = isCommanderFamily(fmt);
  commanderFields.hidden = !show;
  if (show) {
    const oath = fmt.kind === "oathbreaker";
    $("commander-legend").textContent = oath ? "Oathbreaker" : "Commander";
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

function requestOptions() {
  const options = { format: formatSelect.value };
  if (isCommanderFamily(formats[formatSelect.value])) {
    const commanders = [$("commander1").value, $("commander2").value].map((s) => s.trim()).filter(Boolean);
    if (commanders.length) options.commanders = commanders;
    if ($("bracket").value) options.bracket = Number($("bracket").value);
  }
  if ($("as-of").value) options.as_of = $("as-of").value; // YYYY-MM-DD, as the API reads it
  return options;
}

function fileUnedited() { return loadedFile !== null && textarea.value === loadedText; }

// The request: the opened file itself while unedited, else the list's text as JSON.
function requestInit() {
  const options = requestOptions();
  if (fileUnedited()) {
    const data = new FormData();
    data.append("file", loadedFile, loadedFile.name);
    for (const [key, value] of Object.entries(options)) {
      for (const item of [].concat(value)) data.append(key, String(item));
    }
    return { method: "POST", body: data };
  }
  return { method: "POST", headers: { "content-type": "application/json" },
           body: JSON.stringify({ decklist: textarea.value, ...options }) };
}

const bytes = (n) => n.toLocaleString("en-US");
function tooLarge(what, size) {
  return `${what} is ${bytes(size)} bytes; the limit of a decklist is ${bytes(MAX_BYTES)} bytes.`;
}

// Whether the shown verdict is of another list (or format) than the one on screen: said.
function setStale(stale) {
  result.classList.toggle("stale", stale);
  $("stale-note").hidden = !stale;
}

function markStale() { if (!result.hidden) setStale(true); }

function clearResult() {
  result.hidden = true;
  setStale(false);
}

function forgetFile() {
  loadedFile = null;
  loadedText = null;
}

// What a check sends (the list, the options, the opened file): the answer is of exactly that.
function requestKey() {
  return JSON.stringify([textarea.value, requestOptions(), fileUnedited() ? loadedFile.name : null]);
}

// One check at a time: Ctrl+Enter (or a second submit) while a check is in flight is ignored,
// as the disabled button is, so an older list's answer can never land after a newer one's.
let checking = false;

async function check(event) {
  if (event) event.preventDefault();
  if (checking) return;
  showError("");
  if (!textarea.value.trim()) {
    textarea.focus({ preventScroll: true });
    showError("Paste a decklist or open a file first.");
    return;
  }
  if (!formats[formatSelect.value]) {
    showError("Choose a format.");
    formatSelect.focus();
    return;
  }
  if (!fileUnedited()) {
    const size = new TextEncoder().encode(textarea.value).length;
    if (size > MAX_BYTES) {
      clearResult();
      showError(tooLarge("The list", size));
      return;
    }
  }
  const button = $("check");
  checking = true;
  button.disabled = true;
  button.textContent = "Checking…";
  markStale(); // until the answer comes, the verdict shown is the previous list's
  const sentText = textarea.value, sentKey = requestKey();
  try {
    const response = await fetch("v1/validate", requestInit());
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      clearResult(); // no verdict beside the error: the last one was of another list
      showError(data && data.detail ? data.detail : `The server answered ${response.status}.`);
      return;
    }
    checkedLines = sentText.split(/\r\n|\r|\n/);
    if (checkedLines.length > 1 && checkedLines[checkedLines.length - 1] === "") checkedLines.pop();
    render(data);
    // Edited (list, format, commanders, bracket) while the check was in flight: the verdict
    // shown is of the list as sent, not of what is on screen now.
    setStale(requestKey() !== sentKey);
  } catch (e) {
    clearResult();
    showError(`Could not reach the server (${e.message}).`);
  } finally {
    checking = false;
    button.disabled = false;
    button.textContent = "Check";
  }
}

function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

// "Did you mean" is asked of the server (one GET v1/cards each) for the first unknown names
// only, as the CLI suggests for the first 20 (validator.rules.resolve.MAX_SUGGESTED_NAMES): a paste
// of thousands of unknown lines must not cost the server a lookup each.
const MAX_SUGGESTED_NAMES = 20;
let suggestionsLeft = 0;

const VERDICT_TEXT = { legal: "✓ Legal", illegal: "✗ Not legal", unconfirmed: "? Unconfirmed" };

function render(report) {
  result.hidden = false;
  setStale(false);
  suggestionsLeft = MAX_SUGGESTED_NAMES;
  // Unconfirmed is not illegal: no rule was found broken, but something could not be checked
  // (a name the card data does not know, a rarity without printings...).
  const said = report.verdict || (report.legal ? "legal" : "illegal");
  verdict.className = `verdict ${said}`;
  verdict.textContent = `${VERDICT_TEXT[said] || VERDICT_TEXT.illegal} in ${report.format_name}`;
  $("verdict-note").hidden = said !== "unconfirmed";
  const deck = report.deck, parts = [`${deck.main} main deck`];
  if (deck.sideboard) parts.push(`${deck.sideboard} sideboard`);
  if (deck.commanders.length) parts.push(`commander: ${deck.commanders.join(" and ")}`);
  if (deck.companion) parts.push(`companion: ${deck.companion}`);
  parts.push(`${plural(report.counts.error, "error")}, ${plural(report.counts.warning, "warning")}`);
  const read = report.names_read || [];
  if (read.length === 1) parts.push("1 name read as its card's English name");
  else if (read.length) parts.push(`${read.length} names read as their cards' English names`);
  $("summary").textContent = parts.join(" · ");
  $("provenance").textContent = provenanceText(report);

  renderListing(read);
  const problems = report.problems.filter((p) => p.severity !== "info");
  const notes = report.problems.filter((p) => p.severity === "info");
  $("problems").replaceChildren(...problems.map(problemItem));
  if (!problems.length) $("problems").append(el("li", { class: "none", text: "No problems." }));
  $("problems-help").hidden = !problems.some((p) => p.lines && p.lines.length);
  $("notes").replaceChildren(...notes.map(problemItem));
  $("notes-box").hidden = !notes.length;
  $("notes-heading").textContent = `Notes (${notes.length})`;
  // The verdict at the top of the screen: on a phone it is far below the Check button.
  verdict.focus({ preventScroll: true });
  const box = verdict.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) verdict.scrollIntoView({ block: "start" });
}

// "4 Dec 2026" for an ISO date or timestamp (the day as written: no time-zone shift).
function dayText(iso) {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso || "");
  if (!match) return iso || "";
  const day = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return day.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
}

// What the verdict was judged by: the ban lists' date and the card data's.
function provenanceText(report) {
  const prov = report.provenance || {}, data = prov.card_data || {};
  const asOf = prov.legality_as_of;
  const lists = prov.legality_basis === "history"
    ? `Ban lists as of ${dayText(asOf)}${prov.legality_as_of_precision === "month" ? " (end of that month)" : ""}`
    : `Current ban lists (as of ${dayText(asOf)})`;
  const parts = [];
  if (data.scryfall_updated_at) parts.push(`Scryfall data of ${dayText(data.scryfall_updated_at)}`);
  if (data.synced_at) parts.push(`synced ${dayText(data.synced_at)}`);
  const cards = parts.length ? `card data: ${parts.join(", ")}` : "card data of unknown date";
  return `${asOf ? lists : "Current ban lists"} · ${cards}.`;
}

// A citation in a player's words; the code itself stays beside it, small, for the curious.
function citationText(citation) {
  const rule = /^CR (\S+)$/.exec(citation);
  if (rule) return `Comprehensive Rules ${rule[1]}`;
  if (citation === "deckcheck:input") return "your list as written (not a game rule)";
  if (citation === "format:commander-brackets") return "the Commander Brackets";
  const format = /^format:(.+)$/.exec(citation);
  if (format) {
    const name = formats[format[1]] ? formats[format[1]].name : format[1];
    return `${name}'s own rules and ban list`;
  }
  return citation;
}

// The message without what the page shows beside it: its line number ("line 4: ") and, once
// the "Did you mean" buttons are there, the suggestion in words.
function messageText(problem) {
  const lines = problem.lines || [];
  return lines.length ? problem.message.replace(/^lines? \d+(?:(?:, | and |-|–)\d+)*: /, "") : problem.message;
}
const withoutSuggestion = (text) => text.replace(/;? ?did you mean [^]*\?$/i, "");

// Lines as "line 4", "lines 2, 3", or "lines 2, 3, 4, 5, 6 and 65 more".
const SHOWN_LINES = 6;
function linesText(lines) {
  if (!lines.length) return "";
  const shown = lines.slice(0, SHOWN_LINES).join(", ");
  const more = lines.length > SHOWN_LINES ? ` and ${lines.length - SHOWN_LINES} more` : "";
  return `line${lines.length > 1 ? "s" : ""} ${shown}${more}`;
}

// A problem naming more cards than this shows its first lines, and a button to see them all.
const LONG_CARD_LIST = 8;

// A line read by a name that is no Oracle name (another language's, MTGO's) shows the card it
// was read as, and the language: "稲妻 → Lightning Bolt (ja)".
function renderListing(read = []) {
  const asRead = new Map(read.map((r) => [r.line, r]));
  const items = checkedLines.map((text, i) => {
    const item = el("li", { "data-line": String(i + 1) },
      el("span", { class: "ln", "aria-hidden": "true", text: String(i + 1) }),
      el("span", { class: "tx", text: text || " " }));
    const r = asRead.get(i + 1);
    if (r) item.append(el("span", { class: "read-as", text: ` → ${r.card} (${r.language})` }));
    return item;
  });
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
  const where = linesText(lines);
  const message = el("span", { class: "msg", text: messageText(problem) });
  const content = [el("span", { class: `sev ${problem.severity}`, text: problem.severity }), " ", message];
  if (problem.citation) {
    content.push(" ", el("span", { class: "cite", title: `citation: ${problem.citation}`,
                                   text: citationText(problem.citation) }));
    if (!problem.citation.startsWith("CR ")) {
      content.push(" ", el("span", { class: "cite-code", text: problem.citation }));
    }
  }
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
  const cards = problem.cards || [];
  if (cards.length > LONG_CARD_LIST) {
    message.classList.add("clamped");
    const more = el("button", { type: "button", class: "more", "aria-expanded": "false",
                                text: `Show all ${cards.length} cards` });
    more.addEventListener("click", () => {
      const open = message.classList.toggle("clamped") === false;
      more.setAttribute("aria-expanded", String(open));
      more.textContent = open ? "Show fewer" : `Show all ${cards.length} cards`;
    });
    item.append(more);
  }
  if (problem.code === "unknown-card" && cards.length && suggestionsLeft > 0) {
    suggestionsLeft -= 1;
    addSuggestions(item, problem, message);
  }
  return item;
}

async function addSuggestions(item, problem, message) {
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
  message.textContent = withoutSuggestion(message.textContent); // said once: as buttons
  item.append(box);
}

function replaceName(lines, name, suggestion) {
  const all = textarea.value.split(/\r\n|\r|\n/);
  const targets = lines.length ? lines.map((n) => n - 1) : all.map((_, i) => i);
  for (const i of targets) {
    if (all[i] !== undefined && all[i].includes(name)) all[i] = all[i].replace(name, suggestion);
  }
  textarea.value = all.join("\n");
  forgetFile(); // an edit: the text is sent now
  check();
}

// The file's text as shown in the list (the server reads the file itself while it is
// unedited): UTF-16 by its BOM, UTF-8, else the encoding an XML file declares (MTGO .dek
// files may be windows-1252), else UTF-8 with the unreadable bytes marked.
function decodeForDisplay(data) {
  if (data[0] === 0xff && data[1] === 0xfe) return new TextDecoder("utf-16le").decode(data);
  if (data[0] === 0xfe && data[1] === 0xff) return new TextDecoder("utf-16be").decode(data);
  try { return new TextDecoder("utf-8", { fatal: true }).decode(data); } catch (e) { /* not UTF-8 */ }
  const head = new TextDecoder("windows-1252").decode(data.subarray(0, 200));
  const declared = /^\s*<\?xml[^>]*encoding=["']([\w.:-]+)["']/i.exec(head);
  if (declared) {
    try { return new TextDecoder(declared[1]).decode(data); } catch (e) { /* unknown label */ }
  }
  return new TextDecoder("utf-8").decode(data);
}

fileInput.addEventListener("change", () => {
  const file = fileInput.files[0];
  if (!file) return;
  if (file.size > MAX_BYTES) {
    showError(tooLarge(file.name, file.size));
    return;
  }
  const reader = new FileReader();
  reader.onload = () => {
    textarea.value = decodeForDisplay(new Uint8Array(reader.result));
    loadedFile = file;
    loadedText = textarea.value;
    markStale(); // another list now
    showError("");
    textarea.focus();
  };
  reader.onerror = () => showError(`Could not read ${file.name}.`);
  reader.readAsArrayBuffer(file);
});
// Any edit (typing, pasting, cutting): the file is no longer what is checked, and the shown
// verdict is of the list before the edit.
textarea.addEventListener("input", () => { forgetFile(); markStale(); });
textarea.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) check(event);
});
formatSelect.addEventListener("change", () => { updateCommanderFields(); markStale(); });
for (const id of ["commander1", "commander2", "bracket", "as-of"]) $(id).addEventListener("input", markStale);
$("bracket").addEventListener("change", markStale);
form.addEventListener("submit", check);
loadFormats();
