extension Page {
    /// The markup. The script keeps counters in `data-` attributes of `<body>` (`data-samples`,
    /// `data-frames`, `data-plot-points`, `data-calibration-phase`, and the background magnetometer
    /// calibration's `data-magcal-state` and `data-magcal-sigma`, the altitude plot's
    /// `data-altitude-points` and the step count's `data-steps`) so a headless browser test can
    /// read them from the page itself.
    static let body = #"""
        <body data-samples="0" data-frames="0" data-plot-points="0" data-calibration-phase="none" data-magcal-state="none" data-magcal-sigma="" data-altitude-points="0" data-steps="0">
        <header>
          <h1>swift-motion <span id="status" class="status">connecting…</span></h1>
          <div id="source" class="source">—</div>
        </header>
        <main>
          <section class="card attitude">
            <h2>Attitude</h2>
            <canvas id="body3d" width="360" height="300" aria-label="the board's attitude in 3-D"></canvas>
            <dl class="figures">
              <dt>roll</dt><dd id="roll">—</dd>
              <dt>pitch</dt><dd id="pitch">—</dd>
              <dt>yaw</dt><dd id="yaw">—</dd>
              <dt>heading</dt><dd id="heading">—</dd>
              <dt>orientation</dt><dd id="orientation">—</dd>
              <dt>magnetometer</dt><dd id="magcal">—</dd>
            </dl>
            <canvas id="magcal-plot" width="360" height="70" aria-label="the background calibration's offset uncertainty, µT, last 60 s"></canvas>
          </section>
          <section class="card plots">
            <h2>Sensors <small>last 10 s</small></h2>
            <div class="plot"><canvas id="plot-acc" width="480" height="110"></canvas></div>
            <div class="plot"><canvas id="plot-rot" width="480" height="110"></canvas></div>
            <div class="plot"><canvas id="plot-mag" width="480" height="110"></canvas></div>
            <div class="plot"><canvas id="plot-user" width="480" height="110"></canvas></div>
          </section>
          <section class="card altitude">
            <h2>Altitude and steps</h2>
            <canvas id="plot-altitude" width="480" height="110" aria-label="altitude change since the server started, m, last 2 minutes"></canvas>
            <dl class="figures">
              <dt>altitude</dt><dd id="altitude">—</dd>
              <dt>pressure</dt><dd id="pressure">—</dd>
              <dt>steps</dt><dd id="steps">—</dd>
              <dt>activity</dt><dd id="activity">—</dd>
            </dl>
          </section>
          <section class="card counters">
            <h2>Sampler</h2>
            <dl class="figures">
              <dt>rate</dt><dd id="rate">—</dd>
              <dt>sampled</dt><dd id="sampled">—</dd>
              <dt>retried</dt><dd id="retried">—</dd>
              <dt>dropped</dt><dd id="dropped">—</dd>
              <dt>incidents</dt><dd id="incidents">—</dd>
              <dt>this view</dt><dd id="client">—</dd>
              <dt>view rate</dt><dd><select id="rate-choice"><option>10</option><option>20</option><option selected>30</option><option>60</option></select> Hz</dd>
            </dl>
            <p id="sensor-error" class="error"></p>
          </section>
          <section class="card calibration" id="calibration">
            <h2>Magnetometer calibration</h2>
            <p class="hint">Hold the board away from steel and magnets and turn it slowly in figure-eights through every orientation until the map fills.</p>
            <div class="buttons">
              <button id="cal-start">Start</button>
              <button id="cal-save" disabled>Save</button>
              <button id="cal-replace" hidden>Save over the stored one</button>
              <button id="cal-cancel" disabled>Cancel</button>
              <span id="cal-phase" class="phase">idle</span>
            </div>
            <div class="cal-grid">
              <div>
                <div class="projections">
                  <canvas id="proj-xy" width="150" height="150" aria-label="readings, x-y"></canvas>
                  <canvas id="proj-yz" width="150" height="150" aria-label="readings, y-z"></canvas>
                  <canvas id="proj-zx" width="150" height="150" aria-label="readings, z-x"></canvas>
                </div>
                <canvas id="coverage" width="300" height="60" aria-label="directions covered, top row +z"></canvas>
              </div>
              <div>
                <dl class="figures">
                  <dt>coverage</dt><dd id="cal-coverage">—</dd>
                  <dt>fit error</dt><dd id="cal-fit">—</dd>
                  <dt>field</dt><dd id="cal-field">—</dd>
                  <dt>accuracy</dt><dd id="cal-accuracy">—</dd>
                  <dt>samples</dt><dd id="cal-samples">—</dd>
                </dl>
                <pre id="cal-guidance"></pre>
                <p id="cal-result"></p>
              </div>
            </div>
          </section>
        </main>
        </body>
        """#
}
