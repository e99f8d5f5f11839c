/// The frame every page shares: `head` opens the document (styles, navigation), `foot` closes it.
/// Dark, high-contrast and readable at arm's length on a phone or across a clubhouse on a TV.
enum LayoutTemplates {
    static let head = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="dark">
        <title>{{title}} · hyzer</title>
        <style>
        :root { --bg: #0f1512; --panel: #18211c; --line: #2c3a32; --text: #f2f5f3; --muted: #b4c2b9;
          --under: #5ee38a; --at: #f2f5f3; --over: #ffc247; --way: #ff8a80; --accent: #7cc4ff; }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--text); font: 17px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        a { color: var(--accent); }
        a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        .top { display: flex; align-items: center; gap: 1rem; padding: .7rem 1rem; border-bottom: 1px solid var(--line); background: var(--panel); }
        .brand { font-weight: 800; letter-spacing: .04em; color: var(--text); text-decoration: none; font-size: 1.15rem; }
        .top nav { display: flex; gap: 1rem; margin-left: auto; }
        main { max-width: 52rem; margin: 0 auto; padding: 1rem; }
        h1 { font-size: 1.6rem; margin: .3rem 0 .2rem; line-height: 1.2; }
        h2 { font-size: 1.15rem; margin: 1.4rem 0 .5rem; color: var(--muted); text-transform: uppercase; letter-spacing: .06em; }
        .meta { color: var(--muted); margin: 0 0 1rem; }
        code { font: .95em ui-monospace, "SFMono-Regular", Menlo, monospace; }
        table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
        th { text-align: left; color: var(--muted); font-weight: 600; font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; padding: .4rem .5rem; border-bottom: 1px solid var(--line); }
        td { padding: .6rem .5rem; border-bottom: 1px solid var(--line); vertical-align: middle; }
        .num { text-align: right; }
        .pos { width: 2.6rem; font-weight: 700; }
        .name { font-weight: 600; }
        .name a { color: var(--text); text-decoration: none; }
        .name a:hover, .name a:focus-visible { text-decoration: underline; }
        .score { font-weight: 800; font-size: 1.2rem; }
        .tier-underPar { color: var(--under); } .tier-atPar { color: var(--at); }
        .tier-overPar { color: var(--over); } .tier-wayOver { color: var(--way); } .tier-none { color: var(--muted); }
        .move { width: 1.6rem; text-align: center; font-size: .85rem; }
        .move-up { color: var(--under); } .move-down { color: var(--way); } .move-same { color: var(--muted); }
        .disputed { display: inline-block; margin-left: .4rem; padding: 0 .45rem; border: 1px solid var(--over); border-radius: .7rem; color: var(--over); font-size: .75rem; font-weight: 600; }
        .status { display: inline-block; padding: .05rem .55rem; border-radius: .8rem; font-size: .85rem; font-weight: 600; background: var(--line); }
        .status-active { background: #1f4d33; color: #d9ffe6; }
        .live { color: var(--muted); font-size: .85rem; margin: .6rem 0 0; }
        .live.on::before { content: "● "; color: var(--under); }
        .live.off::before { content: "● "; color: var(--over); }
        .cards { list-style: none; padding: 0; margin: 0; display: grid; gap: .6rem; }
        .cards li { background: var(--panel); border: 1px solid var(--line); border-radius: .6rem; padding: .7rem .9rem; }
        .cards a { font-weight: 700; font-size: 1.1rem; }
        .empty { color: var(--muted); }
        .chart { width: 100%; height: auto; background: var(--panel); border: 1px solid var(--line); border-radius: .6rem; }
        .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        footer { max-width: 52rem; margin: 1.5rem auto; padding: 0 1rem; color: var(--muted); font-size: .85rem; }
        @media (max-width: 30rem) { body { font-size: 16px; } td { padding: .55rem .3rem; } th { padding: .4rem .3rem; } .hide-narrow { display: none; } }
        </style>
        </head>
        <body>
        <header class="top"><a class="brand" href="{{links.home}}">hyzer</a>
        <nav aria-label="Main"><a href="{{links.home}}">Rounds</a><a href="{{links.history}}">History</a></nav></header>
        <main>
        """

    static let foot = """
        </main>
        <footer>A read-only view of this replica{{#api}} · <a href="{{api}}">JSON</a>{{/api}}</footer>
        {{#links.published}}
        <script>
        (function () {
          // A published page is a static file: it fetches its own newer version now and then and
          // swaps in what changed (the board when there is one, else the whole main part).
          var target = document.getElementById("board") || document.querySelector("main");
          setInterval(function () {
            fetch(location.href, { cache: "no-cache" }).then(function (answer) { return answer.ok ? answer.text() : ""; }).then(function (text) {
              var page = new DOMParser().parseFromString(text, "text/html");
              var fresh = target.id ? page.getElementById(target.id) : page.querySelector("main");
              if (fresh && fresh.innerHTML !== target.innerHTML) target.innerHTML = fresh.innerHTML;
            }).catch(function () {});
          }, 5000);
        })();
        </script>
        {{/links.published}}
        </body>
        </html>
        """
}
