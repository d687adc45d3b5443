#!/usr/bin/env bash
# The live view in a real browser: Debian's chromium, headless, loads the page of
# `motionctl serve --simulated --scenario tumble` and the page itself reports what it drew: its
# script keeps counters in attributes of <body> (data-samples, data-frames, data-plot-points),
# read here from the DOM chromium dumps. A screenshot is kept for a person to look at.
#
#   bash scripts/browser-test.sh [OUTPUT_DIR]      (default .build/browser-test)
#
# It builds motionctl first, unless MOTIONCTL names a built one (.ci/run, whose tests run beside it
# while SwiftPM's lock would keep this build waiting).
#
# Needs chromium (`apt-get install -y chromium`); as root it runs with --no-sandbox.
set -euo pipefail
trap 'echo "error: scripts/browser-test.sh stopped at line $LINENO" >&2' ERR
cd "$(dirname "$0")/.."
out=${1:-.build/browser-test}
mkdir -p "$out"

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "error: chromium is not installed: apt-get install -y chromium (Debian), then run this again" >&2
    exit 1
fi

if [ -n "${MOTIONCTL:-}" ]; then
    motionctl=$MOTIONCTL
    [ -x "$motionctl" ] || { echo "error: MOTIONCTL=$motionctl is not an executable" >&2; exit 1; }
else
    swift build --product motionctl
    motionctl="$(swift build --show-bin-path)/motionctl"
fi
"$motionctl" serve --simulated --scenario tumble --port 0 --duration 300 >"$out/serve.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
trap 'echo "error: scripts/browser-test.sh stopped at line $LINENO (serve log: $out/serve.log)" >&2' ERR

url=""
for _ in $(seq 1 200); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$out/serve.log" | head -n 1 || true)
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$out/serve.log" >&2; echo "error: motionctl serve did not start" >&2; exit 1; }
    sleep 0.1
done
[ -n "$url" ] || { cat "$out/serve.log" >&2; echo "error: motionctl serve printed no URL in 20 s" >&2; exit 1; }

flags=(--headless --disable-gpu --hide-scrollbars --mute-audio --no-first-run --window-size=1280,1100)
[ "$(id -u)" = 0 ] && flags+=(--no-sandbox)
# Each run its own profile: a browser still shutting down holds its profile's lock.
run=0
# On a loaded machine headless chromium now and then never returns: another try after 60 s (said on
# standard error), up to three; a third hang fails the test. (Two in a row were seen once, on the
# screenshot, in a clean-clone CI run beside the other phases.)
browse() {
    local status
    for attempt in 1 2 3; do
        run=$((run + 1))
        rm -rf "$out/profile-$run"
        status=0
        timeout 60 "$browser" "${flags[@]}" --user-data-dir="$out/profile-$run" --virtual-time-budget=5000 "$@" 2>>"$out/chromium.log" || status=$?
        [ "$status" = 124 ] || return "$status"
        echo "chromium did not finish in 60 s (attempt $attempt of 3)" >&2
    done
    return 124
}

# The page takes 90 samples (3 s at 30 Hz) and closes its stream (`limit`: virtual time stands still
# while a request is open); then the DOM as the page left it.
: >"$out/chromium.log"
browse --dump-dom "${url}?limit=90" >"$out/dom.html"
attribute() { grep -o "$1=\"[0-9]*\"" "$out/dom.html" | head -n 1 | grep -o '[0-9][0-9]*' || echo 0; }
samples=$(attribute data-samples)
frames=$(attribute data-frames)
points=$(attribute data-plot-points)
echo "page: $samples samples received, $frames frames drawn (3-D view and plots), $points plot lines drawn"
failed=0
[ "$samples" -ge 10 ] || { echo "FAIL: the page received $samples samples (want at least 10)" >&2; failed=1; }
[ "$frames" -ge 1 ] || { echo "FAIL: the page drew $frames frames (want at least 1)" >&2; failed=1; }
[ "$points" -ge 12 ] || { echo "FAIL: the plots drew $points lines (want at least 12: 4 plots x 3 axes)" >&2; failed=1; }
grep -q 'class="source">simulated board' "$out/dom.html" || { echo "FAIL: the page does not name the simulated board" >&2; failed=1; }
# The altitude plot (the simulated BMP280's updates, one a second) and the step count.
altitude=$(attribute data-altitude-points)
echo "page: $altitude altitude updates plotted, steps $(attribute data-steps)"
[ "$altitude" -ge 1 ] || { echo "FAIL: the altitude plot drew $altitude updates (want at least 1)" >&2; failed=1; }
grep -q 'id="activity">[a-z]' "$out/dom.html" || { echo "FAIL: the page shows no activity" >&2; failed=1; }
# The background magnetometer calibration's progress (issue #25): a state and an offset σ.
magcal=$(grep -o 'data-magcal-state="[a-zA-Z]*"' "$out/dom.html" | head -n 1 | cut -d'"' -f2 || true)
echo "page: background magnetometer calibration $magcal, offset σ $(grep -o 'data-magcal-sigma="[0-9.]*"' "$out/dom.html" | head -n 1 | cut -d'"' -f2 || true) µT"
case "$magcal" in
    calibrated|learning|needsRotation|disturbed|relearning) ;;
    *) echo "FAIL: the page shows no background magnetometer calibration (state \"$magcal\")" >&2; failed=1 ;;
esac

# A magnetometer calibration as a person starts it from the page (the Start button's POST), on the
# figure-eight the simulated board plays in the calibration; the page then shows its progress.
port=${url#http://127.0.0.1:}
port=${port%/}
http() {   # METHOD PATH: the reply's body (bash's /dev/tcp: nothing else to install)
    exec 3<>"/dev/tcp/127.0.0.1/$port"
    printf '%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n' "$1" "$2" >&3
    sed '1,/^\r$/d' <&3
    exec 3<&-
}
http POST /calibration/magnetometer/start | grep -q '"phase":"measuring"' \
    || { echo "FAIL: POST /calibration/magnetometer/start did not start a calibration" >&2; failed=1; }
phase=measuring
for _ in $(seq 1 300); do
    phase=$(http GET /calibration/magnetometer | grep -o '"phase":"[a-z]*"' | cut -d'"' -f4 || true)
    [ "$phase" != measuring ] && break
    sleep 0.2
done
[ "$phase" = finished ] || { echo "FAIL: the calibration ended $phase, not finished" >&2; failed=1; }
browse --dump-dom "${url}?limit=30" >"$out/dom-calibration.html"
grep -q 'data-calibration-phase="finished"' "$out/dom-calibration.html" \
    || { echo "FAIL: the page does not show the finished calibration" >&2; failed=1; }
grep -q 'id="cal-coverage">[0-9]' "$out/dom-calibration.html" || { echo "FAIL: the page shows no coverage figure" >&2; failed=1; }

browse --screenshot="$out/serve.png" "${url}?limit=150" >>"$out/chromium.log"
[ -s "$out/serve.png" ] || { echo "FAIL: no screenshot" >&2; failed=1; }
http POST /calibration/magnetometer/cancel >/dev/null   # nothing is saved
echo "screenshot: $out/serve.png"
[ "$failed" = 0 ] && echo "PASS: the live view works in chromium"
exit "$failed"
