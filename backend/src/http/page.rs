//! The page's HTML with its words already in it: for `/` and `/chapter/N` the server puts the
//! title, the heading and the chapter's prose (`shared::chapters`) into Trunk's `index.html`,
//! so a reader on a slow phone reads while the wasm loads. The app removes this copy when it
//! mounts (`#prerendered`) and draws the same text itself; a static host without this server
//! serves the plain `index.html`, which works too.

use std::fmt::Write;

use shared::chapters::{self, Chapter, CHAPTERS, INTRO};

/// The element the app removes when it mounts.
pub const PRERENDERED_ID: &str = "prerendered";

/// What an address shows before the wasm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prerender {
    Home,
    Chapter(&'static Chapter),
    /// Any other address: the app decides (and says "not found" itself).
    Nothing,
}

impl Prerender {
    /// The page at `path` (the same rules as the app's router: a trailing `/` is ignored).
    pub fn of(path: &str) -> Prerender {
        let path = path
            .strip_suffix('/')
            .filter(|p| !p.is_empty())
            .unwrap_or(path);
        if path == "/" || path == "/index.html" {
            return Prerender::Home;
        }
        path.strip_prefix("/chapter/")
            .and_then(|n| n.parse::<u8>().ok())
            .and_then(chapters::chapter)
            .map_or(Prerender::Nothing, Prerender::Chapter)
    }

    /// The document's title.
    pub fn title(self) -> Option<String> {
        match self {
            Prerender::Home => Some("Last Seat".to_string()),
            Prerender::Chapter(c) => Some(format!("Chapter {}: {} · Last Seat", c.number, c.title)),
            Prerender::Nothing => None,
        }
    }

    /// Trunk's `index.html` with this page's title and words in it.
    pub fn render(self, index: &str) -> String {
        let Some(title) = self.title() else {
            return index.to_string();
        };
        let mut html = match (index.find("<title>"), index.find("</title>")) {
            (Some(start), Some(end)) if start < end => format!(
                "{}<title>{}{}",
                &index[..start],
                escape(&title),
                &index[end..]
            ),
            _ => index.to_string(),
        };
        if let Some(at) = body_start(&html) {
            html.insert_str(at, &self.body());
        }
        html
    }

    /// The words, in the markup and classes the app draws them with.
    fn body(self) -> String {
        let mut out = format!("\n<div id=\"{PRERENDERED_ID}\">");
        out.push_str(&nav(self));
        match self {
            Prerender::Home => home(&mut out),
            Prerender::Chapter(c) => chapter(&mut out, c),
            Prerender::Nothing => {}
        }
        out.push_str("</div>\n");
        out
    }
}

fn nav(page: Prerender) -> String {
    let mut out =
        String::from("<nav class=\"topbar\" aria-label=\"Chapters\"><a href=\"/\" class=\"brand\"");
    if page == Prerender::Home {
        out.push_str(" aria-current=\"page\"");
    }
    out.push_str(">Last Seat</a><ol class=\"chapter-links\">");
    for c in CHAPTERS {
        let current = matches!(page, Prerender::Chapter(p) if p.number == c.number);
        let _ = write!(
            out,
            "<li><a href=\"/chapter/{n}\" title=\"{t}\"{cur}>{n}</a></li>",
            n = c.number,
            t = escape(c.title),
            cur = if current {
                " aria-current=\"page\""
            } else {
                ""
            },
        );
    }
    out.push_str("</ol></nav>");
    out
}

fn home(out: &mut String) {
    let _ = write!(
        out,
        "<main class=\"page\"><header class=\"intro\"><p class=\"eyebrow\">The race for one \
         seat</p><h1>Last Seat</h1><p class=\"lede\">{}</p></header>\
         <section aria-labelledby=\"chapters-title\"><h2 id=\"chapters-title\">Chapters</h2>\
         <ol class=\"chapter-cards\">",
        escape(INTRO)
    );
    for c in CHAPTERS {
        let _ = write!(
            out,
            "<li class=\"chapter-card\"><a href=\"/chapter/{n}\"><span class=\"chapter-number\">\
             Chapter {n}</span><span class=\"chapter-title\">{t}</span><span \
             class=\"chapter-goal\">{g}</span></a></li>",
            n = c.number,
            t = escape(c.title),
            g = escape(c.goal),
        );
    }
    out.push_str("</ol></section></main>");
}

fn chapter(out: &mut String, c: &Chapter) {
    let _ = write!(
        out,
        "<main class=\"page page-wide\"><header class=\"chapter-head\"><p class=\"eyebrow\">\
         Chapter {n}</p><h1>{t}</h1><p class=\"lede chapter-goal\">{g}</p></header>\
         <div class=\"prose\">",
        n = c.number,
        t = escape(c.title),
        g = escape(c.goal),
    );
    for p in c.text {
        let _ = write!(out, "<p>{}</p>", escape(p));
    }
    out.push_str("</div><p class=\"muted\">The lab is loading…</p></main>");
}

/// Where the body's content starts: after `<body>` (with or without attributes), or, where a
/// minifier left that optional tag out, after `</head>`.
fn body_start(html: &str) -> Option<usize> {
    let tag = html.match_indices("<body").find(|(at, t)| {
        html[at + t.len()..].starts_with(|c: char| c == '>' || c.is_ascii_whitespace())
    });
    match tag {
        Some((at, _)) => html[at..].find('>').map(|end| at + end + 1),
        None => html.find("</head>").map(|at| at + "</head>".len()),
    }
}

/// Text for HTML's content and attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(ch),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = "<!doctype html><html><head><title>Last Seat</title></head><body>\
                         <noscript>needs JavaScript</noscript></body></html>";

    #[test]
    fn a_chapter_s_title_heading_and_prose_go_into_the_html() {
        let c = chapters::chapter(4).expect("chapter 4");
        let html = Prerender::of("/chapter/4").render(INDEX);
        assert!(html.contains("<title>Chapter 4: Who sold my seat twice? · Last Seat</title>"));
        assert!(html.contains("<h1>Who sold my seat twice?</h1>"));
        for p in c.text {
            assert!(html.contains(&escape(p)), "{p}");
        }
        assert!(html.contains("<noscript>"), "the rest of the page stays");
    }

    #[test]
    fn other_addresses_keep_the_plain_page() {
        assert_eq!(Prerender::of("/chapter/9"), Prerender::Nothing);
        assert_eq!(Prerender::of("/nowhere").render(INDEX), INDEX);
        assert_eq!(Prerender::of("/"), Prerender::Home);
        assert!(matches!(Prerender::of("/chapter/2/"), Prerender::Chapter(c) if c.number == 2));
    }

    #[test]
    fn the_words_go_first_in_the_body_however_it_is_written() {
        let words = |html: &str| {
            let out = Prerender::Home.render(html);
            out.find(&format!("<div id=\"{PRERENDERED_ID}\">"))
                .map(|at| out[..at].to_string())
        };
        let head = "<html><head><title>Last Seat</title></head>";
        assert_eq!(
            words(&format!("{head}<body class=\"x\"><noscript>")).as_deref(),
            Some(&*format!("{head}<body class=\"x\">\n"))
        );
        assert_eq!(
            words(&format!("{head}<noscript>")).as_deref(),
            Some(&*format!("{head}\n"))
        );
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a < b & \"c\""), "a &lt; b &amp; &quot;c&quot;");
    }
}
