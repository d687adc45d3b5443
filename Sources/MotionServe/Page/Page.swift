/// The one page `motionctl serve` serves: markup, style and script together, embedded in the
/// binary (no CDN, no network).
enum Page {
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>swift-motion live</title>
        <style>
        \(style)
        </style>
        </head>
        \(body)
        <script>
        \(script)
        </script>
        </html>
        """
}
