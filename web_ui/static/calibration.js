// Table setup page: send the form to POST /api/calibration and show what it found.
"use strict";
(function () {
  const form = document.getElementById("cal-form");
  if (!form) return;
  const token = document.querySelector('meta[name="csrf-token"]').content;
  const result = document.getElementById("cal-result");
  const list = document.getElementById("cal-problems");
  const showImage = (id, url) => {
    const img = document.getElementById(id);
    img.src = url + "?t=" + Date.now();
    img.hidden = false;
  };
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = {};
    for (const [k, v] of new FormData(form).entries()) body[k] = v;
    result.textContent = "Looking for the markers…";
    list.replaceChildren();
    let resp, data;
    try {
      resp = await fetch("/api/calibration", {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRF-Token": token},
        body: JSON.stringify(body)});
      data = await resp.json();
    } catch (err) {
      result.textContent = "The server did not answer: " + err;
      return;
    }
    if (!resp.ok) {
      result.className = "cal-bad";
      result.textContent = data.error || ("refused (" + resp.status + ")");
      return;
    }
    if (data.saved) {
      const t = data.table;
      let text = "Saved: table " + t.width_mm + " × " + t.height_mm + " mm";
      if (t.camera_height_mm !== null) {
        text += "; camera about " + t.camera_height_mm + " mm above the table, tilted " +
          t.camera_tilt_deg + "°";
      }
      result.className = "cal-ok";
      result.textContent = text + ". Reload to see it as the stored calibration.";
      showImage("topdown", "/calibration/topdown.png");
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
  });
})();
