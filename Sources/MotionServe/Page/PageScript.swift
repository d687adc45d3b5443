extension Page {
    /// The page's script: one `EventSource`, drawing on `requestAnimationFrame` only when new
    /// samples came (light on a phone's CPU), plots as fixed-size ring buffers.
    static let script = #"""
        "use strict";
        const params = new URLSearchParams(location.search);
        const token = params.get("token");
        const withToken = (path) => token ? path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token) : path;
        const $ = (id) => document.getElementById(id);
        const deg = (rad) => (rad * 180 / Math.PI).toFixed(1) + "°";
        const body = document.body;
        const stats = { samples: 0, frames: 0, plotPoints: 0 };
        let latest = null, dirty = false, lastCounters = null, rateText = "measuring…";

        // --- plots: 10 s of x, y, z per sensor ---
        const HISTORY = 300;
        function makePlot(id, label, unit, minRange) {
          return { canvas: $(id), label, unit, minRange, data: [new Float32Array(HISTORY), new Float32Array(HISTORY), new Float32Array(HISTORY)], count: 0, head: 0, last: null };
        }
        const plots = {
          acc: makePlot("plot-acc", "acceleration", "g", 1.2),
          rot: makePlot("plot-rot", "rotation rate", "rad/s", 1),
          mag: makePlot("plot-mag", "magnetic field", "µT", 60),
          user: makePlot("plot-user", "user acceleration", "g", 0.2),
        };
        function push(plot, v) {
          if (!v) return;
          for (let i = 0; i < 3; i++) plot.data[i][plot.head] = v[i];
          plot.head = (plot.head + 1) % HISTORY;
          plot.count = Math.min(plot.count + 1, HISTORY);
          plot.last = v;
        }
        function fit(canvas) {
          const ratio = Math.min(window.devicePixelRatio || 1, 2);
          const w = Math.round(canvas.clientWidth * ratio) || canvas.width, h = Math.round(w * canvas.height / canvas.width);
          if (canvas.width !== w) { canvas.height = h; canvas.width = w; }
          const ctx = canvas.getContext("2d");
          return { ctx, w: canvas.width, h: canvas.height, s: canvas.width / 360 };
        }
        const colors = () => { const cs = getComputedStyle(document.documentElement); return ["--x", "--y", "--z", "--dim", "--ink"].map((v) => cs.getPropertyValue(v).trim()); };
        let palette = colors();
        function drawPlot(plot) {
          const { ctx, w, h } = fit(plot.canvas);
          const font = Math.max(10, Math.round(h / 9));
          ctx.clearRect(0, 0, w, h);
          let range = plot.minRange;
          for (let i = 0; i < 3; i++) for (let k = 0; k < plot.count; k++) range = Math.max(range, Math.abs(plot.data[i][k]));
          range *= 1.1;
          const top = font + 4, height = h - top - 2, mid = top + height / 2;
          ctx.strokeStyle = palette[3]; ctx.globalAlpha = 0.35; ctx.lineWidth = 1;
          ctx.beginPath(); ctx.moveTo(0, mid); ctx.lineTo(w, mid); ctx.stroke(); ctx.globalAlpha = 1;
          ctx.lineWidth = Math.max(1, w / 400);
          for (let i = 0; i < 3; i++) {
            ctx.strokeStyle = palette[i]; ctx.beginPath();
            for (let k = 0; k < plot.count; k++) {
              const index = (plot.head - plot.count + k + HISTORY) % HISTORY;
              const x = w - (plot.count - 1 - k) * w / (HISTORY - 1), y = mid - plot.data[i][index] / range * height / 2;
              if (k === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
            }
            ctx.stroke();
            stats.plotPoints += plot.count ? 1 : 0;
          }
          ctx.font = font + "px system-ui, sans-serif"; ctx.fillStyle = palette[4];
          ctx.fillText(plot.label + " (" + plot.unit + ")  ±" + range.toPrecision(2), 4, font);
          if (plot.last) {
            const names = ["x", "y", "z"];
            let x = w - 4;
            ctx.textAlign = "right";
            for (let i = 2; i >= 0; i--) {
              const text = names[i] + " " + plot.last[i].toFixed(plot.unit === "µT" ? 1 : 3);
              ctx.fillStyle = palette[i]; ctx.fillText(text, x, font); x -= ctx.measureText(text).width + 10;
            }
            ctx.textAlign = "left";
          }
        }

        // --- the board in 3-D: a flat box rotated by the attitude, seen from above and aside ---
        const BOX = [0.55, 1, 0.08];   // half extents along device x, y, z
        const AZ = -0.6, EL = 0.45;
        function rotate(q, v) {   // the device-frame vector v in the reference frame (q = w, x, y, z)
          const [w, x, y, z] = q;
          const tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
          return [v[0] + w * tx + y * tz - z * ty, v[1] + w * ty + z * tx - x * tz, v[2] + w * tz + x * ty - y * tx];
        }
        function view(p, cx, cy, scale) {   // reference frame (z up) to the screen
          const x1 = p[0] * Math.cos(AZ) - p[1] * Math.sin(AZ), d1 = p[0] * Math.sin(AZ) + p[1] * Math.cos(AZ);
          const up = p[2] * Math.cos(EL) + d1 * Math.sin(EL), depth = d1 * Math.cos(EL) - p[2] * Math.sin(EL);
          const f = 4 / (4 + depth);
          return [cx + x1 * scale * f, cy - up * scale * f, depth];
        }
        const FACES = [
          { n: [0, 0, 1], c: [[-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], fill: "#3b4658", label: "front" },
          { n: [0, 0, -1], c: [[-1, -1, -1], [-1, 1, -1], [1, 1, -1], [1, -1, -1]], fill: "#7d8797" },
          { n: [1, 0, 0], c: [[1, -1, -1], [1, 1, -1], [1, 1, 1], [1, -1, 1]], fill: "#a5adba" },
          { n: [-1, 0, 0], c: [[-1, -1, -1], [-1, -1, 1], [-1, 1, 1], [-1, 1, -1]], fill: "#a5adba" },
          { n: [0, 1, 0], c: [[-1, 1, -1], [-1, 1, 1], [1, 1, 1], [1, 1, -1]], fill: "#c9a227" },
          { n: [0, -1, 0], c: [[-1, -1, -1], [1, -1, -1], [1, -1, 1], [-1, -1, 1]], fill: "#a5adba" },
        ];
        function drawBody(q) {
          const { ctx, w, h } = fit($("body3d"));
          const cx = w / 2, cy = h / 2 + h * 0.05, scale = Math.min(w, h) * 0.3;
          ctx.clearRect(0, 0, w, h);
          // the reference frame: a ground circle and its axes (x, y, z up)
          ctx.strokeStyle = palette[3]; ctx.globalAlpha = 0.5; ctx.lineWidth = 1; ctx.beginPath();
          for (let a = 0; a <= 64; a++) {
            const t = a / 64 * 2 * Math.PI, p = view([1.5 * Math.cos(t), 1.5 * Math.sin(t), -1.1], cx, cy, scale);
            if (a === 0) ctx.moveTo(p[0], p[1]); else ctx.lineTo(p[0], p[1]);
          }
          ctx.stroke(); ctx.globalAlpha = 1;
          const faces = FACES.map((face) => {
            const points = face.c.map((c) => view(rotate(q, [c[0] * BOX[0], c[1] * BOX[1], c[2] * BOX[2]]), cx, cy, scale));
            const depth = points.reduce((sum, p) => sum + p[2], 0) / 4;
            return { face, points, depth };
          }).sort((a, b) => b.depth - a.depth);
          ctx.lineJoin = "round"; ctx.lineWidth = Math.max(1, w / 300);
          for (const { face, points } of faces) {
            ctx.beginPath(); points.forEach((p, i) => i ? ctx.lineTo(p[0], p[1]) : ctx.moveTo(p[0], p[1])); ctx.closePath();
            ctx.fillStyle = face.fill; ctx.fill(); ctx.strokeStyle = "#222a"; ctx.stroke();
          }
          // the device's axes, from its centre
          const o = view([0, 0, 0], cx, cy, scale);
          const axes = [[1.35, 0, 0, "x"], [0, 1.65, 0, "y"], [0, 0, 1.0, "z"]];
          ctx.font = Math.round(w / 26) + "px system-ui, sans-serif"; ctx.lineWidth = Math.max(2, w / 150);
          axes.forEach((a, i) => {
            const p = view(rotate(q, [a[0], a[1], a[2]]), cx, cy, scale);
            ctx.strokeStyle = palette[i]; ctx.fillStyle = palette[i];
            ctx.beginPath(); ctx.moveTo(o[0], o[1]); ctx.lineTo(p[0], p[1]); ctx.stroke();
            ctx.beginPath(); ctx.arc(p[0], p[1], ctx.lineWidth * 1.6, 0, 2 * Math.PI); ctx.fill();
            ctx.fillText(a[3], p[0] + 6, p[1] - 6);
          });
        }

        // --- samples ---
        // `?limit=N`: close the stream after N samples (a headless browser then sees the page as
        // finished: its virtual time stands still while a request is open).
        const limit = Number(params.get("limit")) || 0;
        function onSample(s) {
          latest = s; stats.samples++; dirty = true;
          if (limit && stats.samples >= limit && source) { source.close(); $("status").textContent = "stopped after " + limit + " samples"; }
          push(plots.acc, s.acc); push(plots.rot, s.rot); push(plots.mag, s.mag); push(plots.user, s.user);
          pushAltitude(s.altitude);
          if (s.magCalibration) {
            magcal.push({ t: s.t, sigma: s.magCalibration.sigma });
            while (magcal.length && s.t - magcal[0].t > 60) magcal.shift();
          }
        }
        // The background magnetometer calibration converging: its offset's σ (µT) on a log scale
        // from 0.1 to 100 µT over the last 60 s, with the `high` line (0.3 µT).
        const magcal = [];
        function drawMagcal() {
          const canvas = $("magcal-plot"), g = canvas.getContext("2d"), w = canvas.width, h = canvas.height;
          g.clearRect(0, 0, w, h);
          const y = (sigma) => h - 4 - (Math.log10(Math.min(Math.max(sigma, 0.1), 100)) + 1) / 3 * (h - 8);
          g.strokeStyle = "#8a8"; g.setLineDash([4, 4]); g.beginPath(); g.moveTo(0, y(0.3)); g.lineTo(w, y(0.3)); g.stroke(); g.setLineDash([]);
          if (!magcal.length) return;
          const end = magcal[magcal.length - 1].t;
          g.strokeStyle = "#36c"; g.beginPath();
          magcal.forEach((p, i) => { const x = w - (end - p.t) / 60 * w; if (i) g.lineTo(x, y(p.sigma)); else g.moveTo(x, y(p.sigma)); });
          g.stroke();
        }
        // The altimeter's updates (one a second): the altitude change over the last 2 minutes, and the steps.
        const altitudes = [];
        let altitudePoints = 0;
        function pushAltitude(a) {
          if (!a || (altitudes.length && altitudes[altitudes.length - 1].t >= a.t)) return;
          altitudes.push(a);
          while (altitudes.length && a.t - altitudes[0].t > 120) altitudes.shift();
        }
        function drawAltitude(s) {
          const { ctx, w, h } = fit($("plot-altitude"));
          const font = Math.max(10, Math.round(h / 9));
          ctx.clearRect(0, 0, w, h);
          ctx.font = font + "px system-ui, sans-serif"; ctx.fillStyle = palette[4];
          if (s.altitude === undefined) { ctx.fillText("no barometer", 4, font); return; }
          let low = Infinity, high = -Infinity;
          for (const a of altitudes) { low = Math.min(low, a.relative); high = Math.max(high, a.relative); }
          if (!altitudes.length) { low = -1; high = 1; }
          const centre = (low + high) / 2, half = Math.max(1, (high - low) / 2) * 1.1;
          const top = font + 4, height = h - top - 2, y = (v) => top + height / 2 - (v - centre) / half * height / 2;
          ctx.fillText("altitude change (m)  " + (centre - half).toFixed(1) + " to " + (centre + half).toFixed(1), 4, font);
          if (!altitudes.length) return;
          const end = altitudes[altitudes.length - 1].t;
          ctx.strokeStyle = palette[2]; ctx.lineWidth = Math.max(1, w / 300); ctx.beginPath();
          altitudes.forEach((a, i) => { const x = w - (end - a.t) / 120 * w; if (i) ctx.lineTo(x, y(a.relative)); else ctx.moveTo(x, y(a.relative)); });
          ctx.stroke();
          altitudePoints = altitudes.length;
        }
        function showAltitudeAndSteps(s) {
          if (s.altitude === undefined) $("altitude").textContent = "no barometer";
          else if (s.altitude === null) $("altitude").textContent = "waiting for the first second of readings…";
          else {
            $("altitude").textContent = (s.altitude.relative >= 0 ? "+" : "") + s.altitude.relative.toFixed(2) + " m since the start";
            $("pressure").textContent = (s.altitude.pressure * 10).toFixed(2) + " hPa";
          }
          if (s.steps) {
            $("steps").textContent = s.steps.count + (s.steps.cadence === null ? "" : " (" + s.steps.cadence.toFixed(2) + " steps/s)");
            $("activity").textContent = s.steps.activity + " (" + s.steps.confidence + ")";
            body.dataset.steps = s.steps.count;
          }
          drawAltitude(s);
          body.dataset.altitudePoints = altitudePoints;
        }
        function showCounters(s) {
          // The sampler's rate over at least 1 s of its own clock (the samples' timestamps), so a
          // browser that is throttled or falls behind still shows what the board does.
          const c = s.counters, now = s.t;
          if (lastCounters && now - lastCounters.time >= 1) {
            rateText = ((c.sampled - lastCounters.sampled) / (now - lastCounters.time)).toFixed(1) + " Hz";
            lastCounters = { time: now, sampled: c.sampled };
          } else if (!lastCounters || now < lastCounters.time) lastCounters = { time: now, sampled: c.sampled };
          $("rate").textContent = rateText;
          $("sampled").textContent = c.sampled;
          $("retried").textContent = c.retried;
          const reasons = Object.entries(c.drops).map(([k, v]) => v + " " + k).join(", ");
          $("dropped").textContent = c.dropped + (reasons ? " (" + reasons + ")" : "");
          $("incidents").textContent = c.incidents + ", recovered " + c.recovered;
          $("client").textContent = s.client.sent + " events, " + s.client.dropped + " dropped (slow view)";
        }
        function frame() {
          requestAnimationFrame(frame);
          if (!dirty || !latest) return;
          dirty = false;
          const s = latest;
          drawBody(s.q);
          for (const key in plots) drawPlot(plots[key]);
          $("roll").textContent = deg(s.roll); $("pitch").textContent = deg(s.pitch); $("yaw").textContent = deg(s.yaw);
          $("heading").textContent = s.heading === null ? "none (no magnetometer)" : s.heading.toFixed(1) + "° from magnetic north (" + s.magAccuracy + ")";
          $("orientation").textContent = s.orientation;
          if (s.magCalibration) {
            const m = s.magCalibration;
            $("magcal").textContent = s.magAccuracy + " — " + m.state + ", offset σ " + m.sigma.toFixed(2) + " µT, heading σ " + m.headingSigma.toFixed(1) + "°"
              + (m.changes ? " (" + m.changes + " change" + (m.changes === 1 ? "" : "s") + " relearned)" : "");
            body.dataset.magcalState = m.state; body.dataset.magcalSigma = m.sigma;
          }
          drawMagcal();
          showAltitudeAndSteps(s);
          showCounters(s);
          stats.frames++;
          body.dataset.samples = stats.samples; body.dataset.frames = stats.frames; body.dataset.plotPoints = stats.plotPoints;
        }
        requestAnimationFrame(frame);

        let source = null;
        function connect() {
          if (source) source.close();
          const rate = params.get("rate") || $("rate-choice").value;
          source = new EventSource(withToken("/events?rate=" + encodeURIComponent(rate)));
          source.addEventListener("open", () => { $("status").textContent = "live"; $("status").className = "status live"; });
          source.addEventListener("error", () => { $("status").textContent = "reconnecting…"; $("status").className = "status lost"; });
          source.addEventListener("info", (e) => {
            const info = JSON.parse(e.data);
            $("source").textContent = info.board + " — " + info.device + " — IMU " + (info.imu || "?") + ", magnetometer " + (info.magnetometer || "none")
              + (info.barometer ? ", barometer " + info.barometer : "") + " — source: " + info.source + " — sampler " + info.samplerRate + " Hz";
            if (!info.calibration) $("calibration").hidden = true;
          });
          source.addEventListener("sample", (e) => onSample(JSON.parse(e.data)));
          source.addEventListener("sensor-error", (e) => { $("sensor-error").textContent = JSON.parse(e.data).message; });
          source.addEventListener("calibration", (e) => showCalibration(JSON.parse(e.data)));
        }
        if (params.get("rate")) $("rate-choice").value = params.get("rate");
        $("rate-choice").addEventListener("change", connect);
        connect();

        // --- calibration ---
        async function post(path) {
          const response = await fetch(withToken(path), { method: "POST" });
          const answer = await response.json().catch(() => ({}));
          if (!response.ok) $("cal-result").textContent = answer.error || ("HTTP " + response.status);
          return answer;
        }
        $("cal-start").addEventListener("click", () => { $("cal-result").textContent = ""; post("/calibration/magnetometer/start"); });
        // A stored calibration that is more accurate blocks the save; the person may still choose this one.
        $("cal-save").addEventListener("click", async () => {
          const answer = await post("/calibration/magnetometer/save");
          $("cal-replace").hidden = !(answer.error || "").includes("more accurate");
        });
        $("cal-replace").addEventListener("click", () => { $("cal-replace").hidden = true; post("/calibration/magnetometer/save?replace=1"); });
        $("cal-cancel").addEventListener("click", () => post("/calibration/magnetometer/cancel"));
        function projection(id, points, corrected, a, b, radius) {
          const { ctx, w, h } = fit($(id));
          ctx.clearRect(0, 0, w, h);
          let range = 10;
          for (const p of points.concat(corrected)) range = Math.max(range, Math.abs(p[a]), Math.abs(p[b]));
          range *= 1.1;
          const sx = (v) => w / 2 + v / range * w / 2, sy = (v) => h / 2 - v / range * h / 2, dot = Math.max(1.5, w / 120);
          ctx.strokeStyle = palette[3]; ctx.globalAlpha = 0.4; ctx.beginPath();
          ctx.moveTo(0, h / 2); ctx.lineTo(w, h / 2); ctx.moveTo(w / 2, 0); ctx.lineTo(w / 2, h); ctx.stroke(); ctx.globalAlpha = 1;
          ctx.fillStyle = palette[3]; for (const p of points) ctx.fillRect(sx(p[a]) - dot / 2, sy(p[b]) - dot / 2, dot, dot);
          ctx.fillStyle = palette[2]; for (const p of corrected) ctx.fillRect(sx(p[a]) - dot / 2, sy(p[b]) - dot / 2, dot, dot);
          if (radius) { ctx.strokeStyle = palette[1]; ctx.beginPath(); ctx.arc(w / 2, h / 2, radius / range * w / 2, 0, 2 * Math.PI); ctx.stroke(); }
          ctx.fillStyle = palette[4]; ctx.font = Math.round(w / 12) + "px system-ui, sans-serif";
          ctx.fillText("xyz"[a] + "–" + "xyz"[b] + " µT", 4, Math.round(w / 12));
        }
        function coverageMap(c) {
          const { ctx, w, h } = fit($("coverage"));
          ctx.clearRect(0, 0, w, h);
          if (!c.cellsPerBand) return;
          const bands = c.cellsPerBand.length, rowHeight = h / bands;
          let index = 0;
          c.cellsPerBand.forEach((count, band) => {
            const cellWidth = w / count;
            for (let k = 0; k < count; k++, index++) {
              ctx.fillStyle = c.covered[index] === "1" ? palette[2] : palette[3];
              ctx.globalAlpha = c.covered[index] === "1" ? 0.9 : 0.25;
              ctx.fillRect(k * cellWidth + 1, band * rowHeight + 1, cellWidth - 2, rowHeight - 2);
            }
          });
          ctx.globalAlpha = 1;
        }
        function showCalibration(c) {
          body.dataset.calibrationPhase = c.phase;
          $("cal-phase").textContent = c.phase + (c.sensor ? " — " + c.sensor : "");
          $("cal-start").disabled = c.phase === "measuring";
          $("cal-save").disabled = c.phase !== "finished";
          if (c.phase !== "finished") $("cal-replace").hidden = true;
          $("cal-cancel").disabled = c.phase !== "measuring" && c.phase !== "finished";
          if (c.phase === "failed" || c.phase === "cancelled") $("cal-result").textContent = c.message || (c.phase === "cancelled" ? "cancelled: nothing saved" : "");
          if (c.raw) {
            projection("proj-xy", c.raw, c.corrected || [], 0, 1, c.fieldStrength);
            projection("proj-yz", c.raw, c.corrected || [], 1, 2, c.fieldStrength);
            projection("proj-zx", c.raw, c.corrected || [], 2, 0, c.fieldStrength);
            coverageMap(c);
            $("cal-coverage").textContent = c.coveragePercent + " % (" + c.coveredCells + " regions)";
            $("cal-fit").textContent = c.fitErrorPercent === null ? "—" : c.fitErrorPercent + " %" + (c.model ? " (" + c.model + ")" : "");
            $("cal-field").textContent = c.fieldStrength === null ? "(shown once the fit settles)" : c.fieldStrength + " µT";
            $("cal-accuracy").textContent = c.accuracy || "—";
            $("cal-samples").textContent = c.sampleCount + " in " + c.elapsed + " s";
            // The command line's lines are wrapped for a terminal: sentences joined again, list items kept.
            const guidance = (c.guidance || []).reduce((text, line) => line.startsWith("  -") ? text + "\n" + line
              : (text && !text.endsWith(":") && !text.endsWith(".") ? text + " " + line.trim() : (text ? text + "\n" : "") + line), "");
            $("cal-guidance").textContent = guidance + (c.sensorError ? "\nsensor: " + c.sensorError : "");
          }
          if (c.result) {
            const r = c.result;
            $("cal-result").textContent = r.saved ? "Saved to " + r.path
              : (r.notSavedBecause ? "Cannot be saved: " + r.notSavedBecause : "Finished (" + r.stoppedBecause + "): hard-iron offset " + r.hardIronOffset.map((v) => v.toFixed(2)).join(", ") + " µT. Save it, or cancel.");
          }
        }
        window.addEventListener("resize", () => { palette = colors(); dirty = true; });
        """#
}
