// The HybridAI web chat. Plain DOM, no framework, no build step. Model text is never inserted as
// HTML: Markdown is turned into elements whose text is set with textContent.
"use strict";

const API = "/v1/chat";
const state = { sessionID: null, config: null, key: localStorage.getItem("hybridai.key") || "",
                pending: [], running: null, sessions: [] };
const $ = (id) => document.getElementById(id);

// ---- HTTP ----------------------------------------------------------------------------------

class APIError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

function headers(extra = {}) {
  const result = { ...extra };
  if (state.key) result["x-goog-api-key"] = state.key;
  return result;
}

async function call(method, path, body, extraHeaders = {}) {
  const init = { method, headers: headers(extraHeaders) };
  if (body !== undefined) {
    if (body instanceof Blob) { init.body = body; }
    else { init.body = JSON.stringify(body); init.headers["content-type"] = "application/json"; }
  }
  let response;
  try { response = await fetch(API + path, init); }
  catch (error) { throw new APIError(0, "The server cannot be reached. Check that hybrid serve is running."); }
  if ([400, 401, 403].includes(response.status)) {
    const text = await response.clone().text();
    if (/API key/i.test(errorMessage(text, response.status))) {   // missing (403) or not valid (400): ask
      await askForKey(!!state.key);
      const retried = await call(method, path, body, extraHeaders);
      await sendKeyCookie();   // the new key for the conversation's pictures, sounds and downloads
      return retried;
    }
  }
  if (!response.ok) throw new APIError(response.status, errorMessage(await response.text(), response.status));
  return response;
}

function errorMessage(text, status) {
  try { return JSON.parse(text).error.message; } catch { return `The server answered ${status}.`; }
}

/** Has the server set the key as an HttpOnly cookie that only file requests use: media elements
 *  and download links cannot send a header, and a key in their URL would reach logs and history. */
async function sendKeyCookie() {
  if (!state.key) return;
  try { await fetch(API + "/key-cookie", { method: "POST", headers: headers() }); } catch { /* the next call says */ }
}

async function json(method, path, body) {
  const response = await call(method, path, body);
  return response.status === 204 ? null : response.json();
}

// Everyone waiting for a key (the page's start, a send) goes on once one is given. The dialog
// cannot be dismissed without one: nothing on the page works without it. (Chromium lets a page
// refuse Escape only after a user gesture, so a dialog closed while keys are awaited reopens.)
const keyWaiters = [];
function askForKey(wrong) {
  return new Promise((resolve) => {
    const dialog = $("key-dialog");
    $("key-message").textContent = wrong ? "That key was not accepted. Try another." : "This server needs an API key.";
    $("key-input").value = "";
    keyWaiters.push(resolve);
    dialog.oncancel = (event) => event.preventDefault();
    dialog.onclose = () => { if (keyWaiters.length) dialog.showModal(); };
    $("key-form").onsubmit = () => {
      state.key = $("key-input").value.trim();
      localStorage.setItem("hybridai.key", state.key);
      keyWaiters.splice(0).forEach((waiter) => waiter());
    };
    if (!dialog.open) dialog.showModal();
  });
}

// ---- Notices --------------------------------------------------------------------------------

function notify(message) {
  const notice = $("notice");
  notice.textContent = message;
  notice.hidden = !message;
}

// ---- Markdown (a safe subset: paragraphs, headings, nested lists, code blocks, inline code, emphasis, links) --

function renderInline(text, parent) {
  const pattern = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)|(\[[^\]]+\]\((https?:\/\/[^\s)]+)\))|(https?:\/\/[^\s<>()]+)/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) parent.append(text.slice(last, match.index));
    const token = match[0];
    let node;
    if (match[1]) { node = document.createElement("code"); node.textContent = token.slice(1, -1); }
    else if (match[2]) { node = document.createElement("strong"); node.textContent = token.slice(2, -2); }
    else if (match[3]) { node = document.createElement("em"); node.textContent = token.slice(1, -1); }
    else if (match[4]) { node = link(match[5], token.slice(1, token.indexOf("]("))); }
    else { node = link(token, token); }
    parent.append(node);
    last = match.index + token.length;
  }
  if (last < text.length) parent.append(text.slice(last));
}

function link(href, label) {
  const a = document.createElement("a");
  a.href = href; a.textContent = label; a.target = "_blank"; a.rel = "noopener noreferrer";
  return a;
}

const headingLine = /^(#{1,6})\s+(.*)$/;
const listLine = /^(\s*)([-*+]|(\d{1,9})[.)])\s+(.*)$/;
const indented = /^\s+\S/;

/** One Markdown block (no blank lines inside, or a fenced code block) as an element. */
function renderBlock(block) {
  if (block.startsWith("```")) {
    const pre = document.createElement("pre");
    const code = document.createElement("code");
    const lines = block.split("\n");
    const closed = lines.length > 1 && lines[lines.length - 1].startsWith("```");
    code.textContent = lines.slice(1, closed ? -1 : undefined).join("\n");
    pre.append(code);
    return pre;
  }
  // Headings, lists and paragraphs may follow each other without blank lines between them.
  const lines = block.split("\n");
  const parts = [];
  for (let i = 0; i < lines.length;) {
    const heading = headingLine.exec(lines[i]);
    if (heading) {
      const h = document.createElement("h" + Math.min(6, heading[1].length + 2));
      renderInline(heading[2], h);
      parts.push(h); i++;
    } else if (listLine.test(lines[i])) {
      let end = i + 1;   // items, and their indented continuation lines
      while (end < lines.length && (listLine.test(lines[end]) || indented.test(lines[end])
        || (!lines[end].trim() && indentedAfterBlanks(lines, end)))) end++;
      parts.push(renderList(lines.slice(i, end))); i = end;
    } else {
      let end = i + 1;   // a paragraph ends where a heading or a list starting at 1 (or a bullet) begins
      while (end < lines.length && !headingLine.test(lines[end]) && !startsList(lines[end])) end++;
      const p = document.createElement("p");
      lines.slice(i, end).forEach((line, n) => { if (n) p.append(document.createElement("br")); renderInline(line, p); });
      parts.push(p); i = end;
    }
  }
  if (parts.length === 1) return parts[0];
  const group = document.createElement("div");
  group.append(...parts);
  return group;
}

/** Whether the first line from `lines[i]` on that is not blank is indented (it goes on a list item). */
function indentedAfterBlanks(lines, i) {
  while (i < lines.length && !lines[i].trim()) i++;
  return i < lines.length && indented.test(lines[i]);
}

/** Whether `line` begins a list inside a paragraph: a bullet, or a number 1 (not "2024. was…"). */
function startsList(line) {
  const item = listLine.exec(line);
  return !!item && (item[3] === undefined || item[3] === "1");
}

/**
 * List lines as a list; an item indented two or more spaces past the one before it starts a list
 * inside that item. A numbered list starts at its first number (so "2." after a blank line is 2).
 */
function renderList(lines) {
  const levels = [];   // { indent, list, item }: the lists open from the outermost in
  let root = null;
  for (const line of lines) {
    if (!line.trim()) continue;   // a blank line inside a list (before an indented line)
    const match = listLine.exec(line);
    const top = levels[levels.length - 1];
    if (!match) {   // a continuation of the item before
      if (top && top.item) { top.item.append(document.createElement("br")); renderInline(line.trim(), top.item); }
      continue;
    }
    const indent = match[1].replace(/\t/g, "    ").length;
    while (levels.length > 1 && indent < levels[levels.length - 1].indent) levels.pop();
    let level = levels[levels.length - 1];
    if (!level || (indent >= level.indent + 2 && level.item)) {
      const list = document.createElement(match[3] === undefined ? "ul" : "ol");
      if (match[3] !== undefined && match[3] !== "1") list.start = Number(match[3]);
      if (level) level.item.append(list); else root = list;
      level = { indent, list, item: null };
      levels.push(level);
    }
    const item = document.createElement("li");
    renderInline(match[4], item);
    level.list.append(item);
    level.item = item;
  }
  return root;
}

/**
 * Streams Markdown into `container`: finished blocks are rendered once; only the block being
 * written is rendered again as text arrives, so long answers cost the same per token.
 */
class MarkdownStream {
  constructor(container) { this.container = container; this.text = ""; this.done = 0; this.live = null; }

  append(delta) {
    this.text += delta;
    for (;;) {
      while (this.text[this.done] === "\n") this.done++;   // blank lines between blocks (also ones arriving later)
      const rest = this.text.slice(this.done);
      const end = blockEnd(rest);
      if (end < 0) break;
      const block = rest.slice(0, end).replace(/\n+$/, "");
      if (block.trim()) this.place(renderBlock(block), true);
      this.done += end;
    }
    const tail = this.text.slice(this.done);
    if (tail.trim()) this.place(renderBlock(tail.replace(/\n+$/, "")), false);
    else if (this.live) { this.live.remove(); this.live = null; }
  }

  place(element, finished) {
    if (this.live) this.live.replaceWith(element); else this.container.append(element);
    this.live = finished ? null : element;
  }
}

/** Where the first complete block of `text` ends (after its blank line or closing fence), or -1. */
function blockEnd(text) {
  if (text.startsWith("```")) {
    const close = text.indexOf("\n```", 3);
    if (close < 0) return -1;
    const lineEnd = text.indexOf("\n", close + 4);
    return lineEnd < 0 ? -1 : lineEnd + 1;
  }
  const fence = text.indexOf("\n```");
  for (let from = 0; ;) {
    const blank = text.indexOf("\n\n", from);
    if (fence >= 0 && (blank < 0 || fence < blank)) return fence + 1;
    if (blank < 0) return -1;
    // A list goes on past a blank line when an indented line follows (a nested list, an item's
    // next paragraph); until that line has begun, the block is not finished.
    if (!text.slice(0, blank).split("\n").some((line) => listLine.test(line))) return blank + 2;
    let next = blank + 2;
    while (text[next] === "\n") next++;
    const following = text.slice(next);
    if (/^[ \t]*$/.test(following)) return -1;
    if (!indented.test(following)) return blank + 2;
    from = next;
  }
}

// ---- Messages ---------------------------------------------------------------------------------

// Follows a growing answer only while the reader is at the bottom: scrolling up to read stops it.
function scrollDown(force) {
  const m = $("messages");
  if (force) state.following = true;
  if (state.following !== false) m.scrollTop = m.scrollHeight;
}

function addUserMessage(text, files) {
  const message = document.createElement("div");
  message.className = "message user";
  const bubble = document.createElement("div");
  bubble.className = "bubble";
  bubble.textContent = text;
  message.append(bubble);
  if (files.length) message.append(fileList(files));
  $("messages").append(message);
  scrollDown(true);
  return message;
}

/** A model message; `waiting`: with a "thinking" indicator until the answer's first event. */
function addModelMessage(waiting) {
  const message = document.createElement("div");
  message.className = "message model";
  const body = document.createElement("div");
  body.className = "body";
  message.append(body);
  let thinking = null;
  if (waiting) {
    thinking = document.createElement("div");
    thinking.className = "thinking";
    thinking.setAttribute("role", "status");
    thinking.setAttribute("aria-label", "Thinking");
    for (let i = 0; i < 3; i++) thinking.append(document.createElement("span"));
    message.append(thinking);
  }
  $("messages").append(message);
  return { message, body, thinking, markdown: new MarkdownStream(body), tools: new Map(), files: null };
}

function stopThinking(view) {
  if (view.thinking) { view.thinking.remove(); view.thinking = null; }
}

/** The line under an answer that a limit cut off (`finishReason` maxTokens or contextWindowFull). */
function addCutOffNote(view, finishReason) {
  const cutOff = { maxTokens: "The answer was cut off: it reached the length limit.",
                   contextWindowFull: "The answer was cut off: the conversation filled the model's context window." };
  if (cutOff[finishReason]) addNote(view, cutOff[finishReason], "cut-off");
}

/** A line under an answer: why it ended early or failed. */
function addNote(view, text, className = "error-text") {
  const note = document.createElement("p");
  note.className = className;
  note.textContent = text;
  view.message.append(note);
}

function fileList(files) {
  const list = document.createElement("div");
  list.className = "files";
  for (const file of files) list.append(filePreview(file));
  return list;
}

function formatSize(bytes) {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["kB", "MB", "GB"]; let value = bytes / 1000, unit = 0;
  while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit++; }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** A file shown as the page can show it: image, audio, video, text, or a download link. */
function filePreview(file) {
  const box = document.createElement("div");
  box.className = "file";
  box.dataset.mimeType = file.mimeType;
  const source = file.url;
  const type = file.mimeType;
  const safeImage = /^image\/(png|jpeg|webp|gif)$/.test(type);
  if (safeImage) {
    const img = document.createElement("img"); img.alt = file.name; img.src = source; box.append(img);
  } else if (type.startsWith("audio/")) {
    const audio = document.createElement("audio"); audio.controls = true; audio.preload = "metadata"; audio.src = source; box.append(audio);
  } else if (type === "video/mp4") {
    const video = document.createElement("video"); video.controls = true; video.preload = "metadata"; video.src = source; box.append(video);
  } else if (type === "text/plain" && file.size <= 64000) {
    const pre = document.createElement("pre"); pre.textContent = "…"; box.append(pre);
    call("GET", source.slice(API.length)).then((r) => r.text()).then((t) => { pre.textContent = t; }).catch(() => { pre.textContent = "(unreadable)"; });
  }
  const caption = document.createElement("div");
  caption.className = "caption";
  const download = link(source, `${file.name} (${formatSize(file.size)})`);
  download.removeAttribute("target");
  download.setAttribute("download", file.name);
  caption.append(download);
  box.append(caption);
  return box;
}

/** A file URL the browser can load by itself (media elements cannot send headers): with the key. */

function addBadge(view, summary) {
  const badge = document.createElement("div");
  badge.className = "badge";
  const part = (text, cls) => { const s = document.createElement("span"); s.textContent = text; if (cls) s.className = cls; badge.append(s); };
  // A conversation saved before sources were recorded names only the model.
  if (summary.source) part(summary.source === "cloud" ? "☁ cloud" : "⌂ on-device");
  part(summary.modelVersion || "model");
  if (summary.fallbackReason) part(`fallback: ${summary.fallbackReason}`, "fallback");
  if (summary.usage) {
    const u = summary.usage;
    const media = [u.imagePromptTokens && `${u.imagePromptTokens} image`, u.audioPromptTokens && `${u.audioPromptTokens} audio`].filter(Boolean);
    part(`${u.promptTokens} in${media.length ? ` (${media.join(", ")})` : ""} · ${u.outputTokens} out tokens`);
  }
  view.message.append(badge);
}

function toolBox(view, callID, name) {
  const box = document.createElement("div");
  box.className = "tool";
  const label = document.createElement("div");
  label.textContent = `⚙ ${name}`;
  const progress = document.createElement("progress");
  progress.max = 1;
  box.append(label, progress);
  view.body.before(box);
  view.tools.set(callID, { box, label, progress, name });
  return view.tools.get(callID);
}

function addFile(view, file) {
  if (!view.files) { view.files = document.createElement("div"); view.files.className = "files"; view.message.append(view.files); }
  view.files.append(filePreview(file));
}

// ---- Sending -------------------------------------------------------------------------------------

/** A switch per tool group (the tools of one MCP server): a group switched off is not offered. */
function renderToolGroups() {
  const box = $("tool-groups");
  const groups = state.config.toolGroups || [];
  const title = document.createElement("span");
  title.textContent = "Tools";
  box.replaceChildren(title);
  box.hidden = !groups.length;
  for (const group of groups) {
    const label = document.createElement("label");
    label.className = "tool-group";
    label.title = `${group.name}'s tools: ${group.tools.join(", ") || "none"}`;
    const toggle = document.createElement("input");
    toggle.type = "checkbox"; toggle.checked = true; toggle.value = group.name;
    label.append(toggle, document.createTextNode(group.name));
    box.append(label);
  }
}

/** The names of the tool groups switched on. */
function enabledToolGroups() {
  return Array.from($("tool-groups").querySelectorAll("input:checked"), (toggle) => toggle.value);
}

async function send() {
  const input = $("input");
  const text = input.value;
  const files = state.pending.slice();
  if (!text.trim() && !files.length) { notify("Write a message or attach a file first."); return; }
  if (state.running) return;
  notify("");
  try {
    if (!state.sessionID) await newSession(true);
    input.value = ""; autosize();
    state.pending = []; renderPending();
    const question = addUserMessage(text, files);
    const view = addModelMessage(true);
    scrollDown(true);
    setRunning(true);
    let response;
    try {
      response = await call("POST", `/sessions/${state.sessionID}/messages`,
                            { text, files: files.map((f) => f.id), mode: $("mode").value, toolGroups: enabledToolGroups() });
    } catch (error) {
      // Not sent: the message and its files go back to the composer (unless something new is there).
      question.remove(); view.message.remove();
      if (!input.value) { input.value = text; autosize(); }
      if (!state.pending.length) { state.pending = files; renderPending(); }
      throw error;
    }
    await readEvents(response, view);
  } catch (error) {
    notify(error.message);
    if (error.status === 404) { await refreshSessions(); }
  } finally {
    setRunning(false);
    refreshSessions();
  }
}

async function readEvents(response, view) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "", finished = false;
  for (;;) {
    let chunk;
    try { chunk = await reader.read(); }
    catch { break; }
    if (chunk.done) break;
    buffer += decoder.decode(chunk.value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end); buffer = buffer.slice(end + 2);
      let name = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (!data) continue;
      const payload = JSON.parse(data);
      if (name === "done" || name === "error") finished = true;
      handleEvent(view, name, payload);
    }
  }
  stopThinking(view);
  if (!finished) addNote(view, "The connection was lost before the answer finished; it was not saved.");
}

function handleEvent(view, name, data) {
  if (name !== "fallback") stopThinking(view);   // after a fallback the other model is still thinking
  switch (name) {
    case "text":
      if (window.__hybridFirstPaintEpoch === undefined) {   // read by the browser test: when text first reached the screen
        window.__hybridFirstPaintEpoch = null;
        requestAnimationFrame(() => { window.__hybridFirstPaintEpoch = Date.now(); });
      }
      view.markdown.append(data.delta); scrollDown(); break;
    case "fallback": view.fallback = data; break;
    case "toolStarted": toolBox(view, data.callID, data.toolName); break;
    case "toolProgress": {
      const tool = view.tools.get(data.callID) || toolBox(view, data.callID, "tool");
      tool.progress.value = data.fraction;
      tool.label.textContent = `⚙ ${tool.name}: ${data.message || Math.round(data.fraction * 100) + "%"}`;
      break;
    }
    case "toolFinished": {
      const tool = view.tools.get(data.callID);
      if (tool) { tool.progress.value = 1; tool.label.textContent = `⚙ ${tool.name}: ${data.isError ? "failed" : "done"}`; }
      break;
    }
    case "artifact": addFile(view, data.file); scrollDown(); break;
    case "usage": break;
    case "done": addCutOffNote(view, data.finishReason); addBadge(view, data); scrollDown(); break;
    case "error": addNote(view, data.kind === "cancelled" ? "Stopped." : data.message); break;
  }
}

function setRunning(running) {
  state.running = running;
  $("send").hidden = running;
  $("stop").hidden = !running;
}

async function stop() {
  if (!state.sessionID) return;
  try { await json("POST", `/sessions/${state.sessionID}:stop`); } catch (error) { notify(error.message); }
}

// ---- Attachments -----------------------------------------------------------------------------

async function attach(fileList) {
  for (const file of fileList) {
    if (state.config && file.size > state.config.maxUploadBytes) {
      notify(`${file.name} is ${formatSize(file.size)}; this server takes files up to ${formatSize(state.config.maxUploadBytes)}.`);
      continue;
    }
    try {
      if (!state.sessionID) await newSession(true);
      const response = await call("POST", `/sessions/${state.sessionID}/files?name=${encodeURIComponent(file.name)}`, file);
      const stored = await response.json();
      stored.localURL = URL.createObjectURL(file);
      state.pending.push(stored);
      renderPending();
      warnIfUnreadable(stored);
    } catch (error) { notify(`${file.name}: ${error.message}`); }
  }
}

/** Says when the model the chosen mode needs cannot read a file of this kind. */
function warnIfUnreadable(file) {
  const kind = file.mimeType.split("/")[0];
  if (!["image", "audio", "video"].includes(kind) || !state.config) return;
  const mode = $("mode").value;
  const device = (state.config.onDeviceReads || []).includes(kind);
  const cloud = (state.config.cloudReads || []).includes(kind);
  if (mode === "on-device" && !device) notify(`The on-device model does not read ${kind}: choose a mode with the cloud for ${file.name}.`);
  else if (mode === "cloud" && !cloud) notify(`The cloud model does not read ${kind}: choose a mode with the on-device model for ${file.name}.`);
  else if (mode.startsWith("prefer") && device) notify(`${file.name} is read on this device.`);
}

function renderPending() {
  const box = $("pending-files");
  box.replaceChildren();
  state.pending.forEach((file, index) => {
    const item = document.createElement("div");
    item.className = "pending";
    if (file.mimeType.startsWith("image/") && file.mimeType !== "image/heic") {
      const img = document.createElement("img"); img.src = file.localURL; img.alt = file.name; item.append(img);
    } else { item.append(file.name); }
    const remove = document.createElement("button");
    remove.type = "button"; remove.textContent = "×"; remove.title = "Remove";
    remove.onclick = () => { state.pending.splice(index, 1); renderPending(); };
    item.append(remove);
    box.append(item);
  });
}

// ---- Sessions ------------------------------------------------------------------------------------

async function refreshSessions() {
  try { state.sessions = (await json("GET", "/sessions")).sessions; } catch (error) { notify(error.message); return; }
  const list = $("session-list");
  list.replaceChildren();
  for (const session of state.sessions) {
    // Conversations nothing was said in (a tab closed after attaching a file) are not listed.
    if (session.entryCount === 0 && session.id !== state.sessionID) continue;
    const item = document.createElement("li");
    item.dataset.id = session.id;
    if (session.id === state.sessionID) item.className = "active";
    const name = document.createElement("button");
    name.type = "button"; name.className = "name"; name.textContent = session.title || "Untitled";
    name.onclick = () => openSession(session.id);
    const action = (text, title) => {
      const button = document.createElement("button");
      button.type = "button"; button.className = "action"; button.textContent = text; button.title = title;
      button.setAttribute("aria-label", `${title} “${session.title || "Untitled"}”`);
      return button;
    };
    const rename = action("✎", "Rename"), remove = action("✕", "Delete");
    rename.onclick = async (event) => {
      event.stopPropagation();
      const title = prompt("New title", session.title || "");
      if (title && title.trim()) { try { await json("PATCH", `/sessions/${session.id}`, { title }); } catch (e) { notify(e.message); } refreshSessions(); }
    };
    remove.onclick = async (event) => {
      event.stopPropagation();
      if (!confirm(`Delete “${session.title || "Untitled"}”?`)) return;
      try { await json("DELETE", `/sessions/${session.id}`); } catch (e) { notify(e.message); }
      if (session.id === state.sessionID) startFresh();
      refreshSessions();
    };
    item.append(name, rename, remove);
    list.append(item);
    if (session.id === state.sessionID) $("session-title").textContent = session.title || "Untitled";
  }
}

async function openSession(id) {
  if (state.running) return;
  let detail;
  try { detail = await json("GET", `/sessions/${id}`); }
  catch (error) { notify(error.status === 404 ? "That conversation no longer exists (deleted elsewhere)." : error.message); refreshSessions(); return; }
  notify("");
  if (state.sessionID !== id) {
    leaveEmptySession();
    state.pending = []; renderPending();   // stored in the other conversation
  }
  state.sessionID = id;
  history.replaceState(null, "", `#${id}`);
  $("session-title").textContent = detail.session.title || "Untitled";
  const messages = $("messages");
  messages.replaceChildren();
  let view = null;
  for (const entry of detail.entries) {
    if (entry.role === "user") { addUserMessage(entry.text, entry.files); view = null; continue; }
    if (!view) view = addModelMessage(false);
    if (entry.role === "model") {
      view.markdown.append(entry.text);
      for (const file of entry.files) addFile(view, file);
      addCutOffNote(view, entry.finishReason);
      addBadge(view, entry);
      view = null;
    } else if (entry.role === "tool") {
      const tool = toolBox(view, entry.toolName + Math.random(), entry.toolName);
      tool.progress.value = 1;
      tool.label.textContent = `⚙ ${entry.toolName}: ${entry.isError ? "failed" : "done"}`;
      for (const file of entry.files) addFile(view, file);
    }
  }
  if (detail.isAnswering) notify("This conversation is still answering in another tab; reload when it is done.");
  document.querySelectorAll("#session-list li").forEach((li) => li.classList.toggle("active", li.dataset.id === id));
  document.getElementById("app").classList.remove("show-sidebar");
  scrollDown(true);
}

async function newSession(quiet) {
  const session = await json("POST", "/sessions", {});
  state.sessionID = session.id;
  history.replaceState(null, "", `#${session.id}`);
  if (!quiet) { $("messages").replaceChildren(); $("session-title").textContent = "New conversation"; }
  await refreshSessions();
}

/**
 * Deletes the open conversation when nothing was said in it (it was made for a file attached and
 * then left), so empty "Untitled" conversations do not pile up.
 */
function leaveEmptySession() {
  const id = state.sessionID;
  const saved = state.sessions.find((session) => session.id === id);
  if (!id || state.running || !saved || saved.entryCount !== 0 || $("messages").children.length) return;
  state.sessions = state.sessions.filter((session) => session.id !== id);
  document.querySelector(`#session-list li[data-id="${id}"]`)?.remove();
  call("DELETE", `/sessions/${id}`).catch(() => {});
}

function startFresh() {
  leaveEmptySession();
  state.sessionID = null;
  state.pending = []; renderPending();   // files are stored in the conversation they were attached to
  history.replaceState(null, "", location.pathname);
  $("messages").replaceChildren();
  $("session-title").textContent = "New conversation";
}

// ---- Set-up --------------------------------------------------------------------------------------

function autosize() {
  const input = $("input");
  input.style.height = "auto";
  const borders = input.offsetHeight - input.clientHeight;   // the height is the border box's
  input.style.height = Math.min(input.scrollHeight + borders, 200) + "px";
}

async function start() {
  $("composer").onsubmit = (event) => { event.preventDefault(); send(); };
  $("input").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) { event.preventDefault(); send(); }
  });
  $("input").addEventListener("input", autosize);
  // At phone width the keyboard hint would wrap (and a phone's keyboard has no Shift+Enter).
  const phone = matchMedia("(max-width: 700px)");
  const hint = $("input").placeholder;
  const fitPlaceholder = () => { $("input").placeholder = phone.matches ? "Message" : hint; autosize(); };
  phone.addEventListener("change", fitPlaceholder);
  fitPlaceholder();
  $("stop").onclick = stop;
  $("new-session").onclick = () => {
    if (!state.running) startFresh();
    $("app").classList.remove("show-sidebar");
  };
  $("toggle-sidebar").onclick = () => $("app").classList.toggle("show-sidebar");
  $("attach").onclick = () => $("file-input").click();
  $("file-input").onchange = (event) => { attach(event.target.files); event.target.value = ""; };
  const composer = $("composer");
  composer.addEventListener("dragover", (event) => { event.preventDefault(); composer.classList.add("dragging"); });
  composer.addEventListener("dragleave", () => composer.classList.remove("dragging"));
  composer.addEventListener("drop", (event) => {
    event.preventDefault(); composer.classList.remove("dragging");
    if (event.dataTransfer && event.dataTransfer.files.length) attach(event.dataTransfer.files);
  });
  try { state.config = await json("GET", "/config"); }
  catch (error) { notify(error.message); return; }
  await sendKeyCookie();
  const mode = $("mode");
  for (const option of mode.options) option.disabled = !state.config.modes.includes(option.value);
  if (state.config.defaultMode) mode.value = state.config.defaultMode;
  renderToolGroups();
  await refreshSessions();
  const id = location.hash.slice(1);
  if (id) await openSession(id);
  document.body.dataset.ready = "true";
}

document.addEventListener("DOMContentLoaded", start);
