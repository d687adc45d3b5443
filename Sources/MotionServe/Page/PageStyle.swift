extension Page {
    static let style = #"""
        :root { color-scheme: light dark; --bg: #f4f5f7; --card: #fff; --ink: #1d2330; --dim: #6b7280; --x: #d9453b; --y: #2e9d4f; --z: #2f6fdb; }
        @media (prefers-color-scheme: dark) { :root { --bg: #14171c; --card: #1e232b; --ink: #e6e8eb; --dim: #9aa3af; } }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--ink); }
        header { padding: 10px 16px; }
        h1 { font-size: 18px; margin: 0; }
        h2 { font-size: 15px; margin: 0 0 8px; }
        h2 small { color: var(--dim); font-weight: normal; }
        .status { font-size: 12px; font-weight: normal; padding: 2px 8px; border-radius: 10px; background: #999; color: #fff; }
        .status.live { background: #2e9d4f; }
        .status.lost { background: #d9453b; }
        .source { color: var(--dim); font-size: 13px; }
        main { display: grid; grid-template-columns: repeat(auto-fit, minmax(330px, 1fr)); gap: 12px; padding: 0 12px 12px; }
        .card { background: var(--card); border-radius: 10px; padding: 12px; box-shadow: 0 1px 3px rgba(0,0,0,.12); min-width: 0; }
        canvas { display: block; width: 100%; height: auto; }
        .plot { margin-bottom: 6px; }
        .figures { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0 0; font-variant-numeric: tabular-nums; }
        .figures dt { color: var(--dim); }
        .figures dd { margin: 0; }
        .calibration { grid-column: 1 / -1; }
        body[data-calibration-phase="none"] .cal-grid, body[data-calibration-phase="idle"] .cal-grid { display: none; }
        .cal-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 12px; }
        .projections { display: grid; grid-template-columns: repeat(3, 1fr); gap: 6px; margin: 8px 0; }
        .buttons { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
        button { font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid var(--dim); background: var(--card); color: var(--ink); }
        button:disabled { opacity: .4; }
        .phase { color: var(--dim); }
        .hint { color: var(--dim); margin: 0 0 8px; }
        pre { white-space: pre-wrap; font: 13px/1.4 system-ui, sans-serif; margin: 8px 0 0; }
        .error { color: #d9453b; min-height: 1em; margin: 6px 0 0; }
        """#
}
