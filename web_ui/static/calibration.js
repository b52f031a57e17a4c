// Table setup page: calibrate from the markers (POST /api/calibration) or, as the fallback,
// from the four play-area corners tapped on the picture (POST /api/calibration/corners); the
// picture is the camera frame or an uploaded photo (POST /api/calibration/photo); show what
// each found.
"use strict";
(function () {
  const token = document.querySelector('meta[name="csrf-token"]').content;
  const controller = document.body.dataset.controller === "yes";

  // ---- the picture: an uploaded photo instead of the camera frame ----------------------
  const photoForm = document.getElementById("photo-form");
  const photoResult = document.getElementById("photo-result");
  async function photoPost(path, body, type) {
    photoResult.className = "";
    photoResult.textContent = "Sending…";
    let resp, data;
    try {
      resp = await fetch(path, {method: "POST", credentials: "same-origin",
        headers: {"Content-Type": type, "X-CSRF-Token": token}, body: body});
      data = await resp.json();
    } catch (err) {
      photoResult.className = "cal-bad";
      photoResult.textContent = "The server did not answer: " + err;
      return;
    }
    if (!resp.ok) {
      photoResult.className = "cal-bad";
      photoResult.textContent = data.error || ("refused (" + resp.status + ")");
      return;
    }
    window.location.reload();  // the page shows the new picture and the calibration forms
  }
  if (photoForm) {
    photoForm.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const file = document.getElementById("photo-file").files[0];
      if (file) photoPost("/api/calibration/photo", file, file.type || "application/octet-stream");
    });
    const forget = document.getElementById("photo-forget");
    if (forget) {
      forget.addEventListener("click", () =>
        photoPost("/api/calibration/photo/forget", "{}", "application/json"));
    }
  }

  const form = document.getElementById("cal-form");
  if (!form) return;
  const showImage = (id, url) => {
    const img = document.getElementById(id);
    img.src = url + "?t=" + Date.now();
    img.hidden = false;
  };

  async function send(path, body, result) {
    // POST a JSON body; the answer's JSON, or null after saying what went wrong in `result`.
    let resp, data;
    try {
      resp = await fetch(path, {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRF-Token": token},
        body: JSON.stringify(body)});
      data = await resp.json();
    } catch (err) {
      result.className = "cal-bad";
      result.textContent = "The server did not answer: " + err;
      return null;
    }
    if (!resp.ok) {
      result.className = "cal-bad";
      result.textContent = data.error || ("refused (" + resp.status + ")");
      return null;
    }
    return data;
  }

  async function refreshStored() {
    // The "Stored calibration" card is drawn by the server: after a save, take the page's
    // new card in place of the old one (on failure the old card stays; a reload shows it).
    try {
      const resp = await fetch(window.location.pathname, {credentials: "same-origin"});
      if (!resp.ok) return;
      const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
      const fresh = doc.getElementById("stored");
      const card = document.getElementById("stored");
      if (fresh && card) card.replaceWith(document.importNode(fresh, true));
    } catch (err) {
      // the server did not answer: the saved result above still says what was stored
    }
  }

  function showRun(data, result, list) {
    // A calibration answer: saved or not, the problems, the preview and top-down images.
    list.replaceChildren();
    if (data.saved) {
      const t = data.table;
      let text = "Saved: table " + t.width_mm + " × " + t.height_mm + " mm";
      if (t.method === "manual") text += " from the corners you tapped";
      if (t.camera_height_mm !== null) {
        text += "; camera about " + t.camera_height_mm + " mm above the table, tilted " +
          t.camera_tilt_deg + "°";
      }
      result.className = "cal-ok";
      result.textContent = text + ".";
      showImage("topdown", "/calibration/topdown.png");
      refreshStored();
    } else {
      result.className = "cal-bad";
      result.textContent = "Not saved: fix the problems below and try again.";
      document.getElementById("topdown").hidden = true;
    }
    for (const p of data.problems) {
      const li = document.createElement("li");
      li.className = "cal-" + p.severity;
      li.textContent = p.severity + ": " + p.message;
      list.appendChild(li);
    }
    showImage("preview", "/calibration/preview.png");
  }

  const result = document.getElementById("cal-result");
  const list = document.getElementById("cal-problems");
  const corners = document.getElementById("corners-card");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = {};
    for (const [k, v] of new FormData(form).entries()) body[k] = v;
    result.className = "";
    result.textContent = "Looking for the markers…";
    list.replaceChildren();
    const data = await send("/api/calibration", body, result);
    if (data === null) return;
    showRun(data, result, list);
    if (!data.saved && corners) {
      // the fallback: offer the corners by hand
      corners.open = true;
      result.textContent += " Or tap the four corners below.";
    }
  });

  // ---- the manual four-corner fallback -------------------------------------------------
  const area = document.getElementById("tap-area");
  if (!area) return;
  const NAMES = ["top-left", "top-right", "bottom-right", "bottom-left"];
  const SHORT = ["1 TL", "2 TR", "3 BR", "4 BL"];
  const SVG = "http://www.w3.org/2000/svg";
  const img = document.getElementById("tap-frame");
  const marks = document.getElementById("tap-marks");
  const next = document.getElementById("tap-next");
  const tapForm = document.getElementById("tap-form");
  const undo = document.getElementById("tap-undo");
  const clear = document.getElementById("tap-clear");
  const save = document.getElementById("tap-save");
  const tapResult = document.getElementById("tap-result");
  const tapList = document.getElementById("tap-problems");
  const taps = [];  // [x, y] in pixels of the picture (its natural size)

  function el(name, attrs) {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    return e;
  }

  function draw() {
    const w = img.naturalWidth, h = img.naturalHeight;
    marks.replaceChildren();
    if (w && h) {
      marks.setAttribute("viewBox", "0 0 " + w + " " + h);
      const r = Math.max(w, h) / 90;
      if (taps.length > 1) {
        const pts = taps.map((p) => p.join(",")).join(" ");
        marks.appendChild(el(taps.length === 4 ? "polygon" : "polyline", {
          points: pts, fill: taps.length === 4 ? "rgba(255,140,0,0.15)" : "none",
          stroke: "#ff8c00", "stroke-width": r / 2}));
      }
      taps.forEach((p, k) => {
        marks.appendChild(el("circle", {cx: p[0], cy: p[1], r: r, fill: "#e53935",
                                        stroke: "#fff", "stroke-width": r / 4}));
        const label = el("text", {x: p[0] + 1.4 * r, y: p[1] - 1.2 * r, fill: "#fff",
                                  stroke: "#000", "stroke-width": r / 6, "font-size": 2.6 * r,
                                  "font-weight": "bold", "paint-order": "stroke"});
        label.textContent = SHORT[k];
        marks.appendChild(label);
      });
    }
    next.textContent = taps.length < 4
      ? "Tap the " + NAMES[taps.length] + " corner (" + (taps.length + 1) + " of 4)."
      : "All four corners tapped: check them, give the size and save.";
    area.dataset.taps = String(taps.length);
    undo.disabled = taps.length === 0;
    clear.disabled = taps.length === 0;
    save.disabled = taps.length !== 4 || !controller;
  }

  area.addEventListener("click", (ev) => {
    // mouse clicks and touch taps alike (a tap on a touch screen ends in a click)
    if (taps.length >= 4 || !img.naturalWidth) return;
    const box = img.getBoundingClientRect();
    const x = (ev.clientX - box.left) * img.naturalWidth / box.width;
    const y = (ev.clientY - box.top) * img.naturalHeight / box.height;
    if (x < 0 || y < 0 || x > img.naturalWidth || y > img.naturalHeight) return;
    taps.push([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
    draw();
  });
  undo.addEventListener("click", () => { taps.pop(); draw(); });
  clear.addEventListener("click", () => { taps.length = 0; draw(); });
  document.getElementById("tap-refresh").addEventListener("click", () => {
    // a fresh camera frame (the table or camera may have moved): the taps start again
    taps.length = 0;
    img.src = "/calibration/frame.jpg?t=" + Date.now();
    draw();
  });
  img.addEventListener("load", draw);
  if (img.complete) draw();

  tapForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (taps.length !== 4) return;
    const body = {corners: taps, image_size: [img.naturalWidth, img.naturalHeight]};
    for (const [k, v] of new FormData(tapForm).entries()) body[k] = v;
    tapResult.className = "";
    tapResult.textContent = "Working out the table plane…";
    tapList.replaceChildren();
    const data = await send("/api/calibration/corners", body, tapResult);
    if (data === null) return;
    showRun(data, tapResult, tapList);
  });
})();
