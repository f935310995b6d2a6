//! `report.html` as a reader sees it: it says what `report.md` says, keeps each cell's
//! provenance, shows every plot even when rebuilt from existing cells, and renders in a
//! headless Chromium (`scripts/setup.sh` installs it) without broken images or a page wider
//! than a 1,400-pixel window. Ranges are a few thousand inputs, so each report takes well
//! under a second.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const WINDOW: (u32, u32) = (1400, 900);

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tmd-report-page-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `tmd report` of `targets` x expf,logf on [1, 1.001), written to `out`.
fn report(targets: &str, rounding: &str, out: &Path) {
    let args = [
        "report",
        "--targets",
        targets,
        "--functions",
        "expf,logf",
        "--rounding",
        rounding,
        "--from",
        "1",
        "--to",
        "1.001",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ];
    let run = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .args(args)
        .output()
        .expect("tmd runs");
    assert!(
        run.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn cell_json(out: &Path, stem: &str) -> Value {
    serde_json::from_str(&read(&out.join(format!("cells/{stem}.json")))).unwrap()
}

fn write_cell_json(out: &Path, stem: &str, cell: &Value) {
    let path = out.join(format!("cells/{stem}.json"));
    std::fs::write(path, serde_json::to_vec_pretty(cell).unwrap()).unwrap();
}

/// HTML as the text a reader sees: tags dropped, entities decoded.
fn text_of(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// The contents of every `<open ...>...</close>` element of `html`, in order.
fn elements<'a>(html: &'a str, open: &str, close: &str) -> Vec<&'a str> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find(open) {
        let after = &rest[start..];
        let body = &after[after.find('>').unwrap() + 1..];
        let end = body.find(close).unwrap();
        found.push(&body[..end]);
        rest = &body[end..];
    }
    found
}

/// Each table row of the page as the Markdown writes it: `| a | b |`.
fn html_rows(html: &str) -> Vec<String> {
    elements(html, "<tr", "</tr>")
        .iter()
        .map(|row| {
            let cells: Vec<String> = elements(row, "<t", "</t")
                .into_iter()
                .map(text_of)
                .collect();
            format!("| {} |", cells.join(" | "))
        })
        .collect()
}

#[test]
fn the_html_page_says_what_the_markdown_says() {
    let out = scratch("same");
    report("glibc,musl", "nearest", &out);
    // A maximum only known to lie in an interval, which both pages must mark and explain.
    let mut cell = cell_json(&out, "expf.musl.nearest");
    cell["max_verified"] = Value::Bool(false);
    write_cell_json(&out, "expf.musl.nearest", &cell);
    report("glibc,musl", "nearest", &out);
    let md = read(&out.join("report.md"));
    let html = read(&out.join("report.html"));
    let md_rows: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("| --- |"))
        .collect();
    assert_eq!(html_rows(&html), md_rows);
    assert!(md_rows.iter().any(|r| r.contains("* (0x")), "{md}");
    let md_text: Vec<String> = md
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('|') && !l.starts_with('#'))
        .map(|l| l.replace('`', ""))
        .collect();
    let html_text: Vec<String> = elements(&html, "<p", "</p>")
        .iter()
        .map(|p| text_of(p))
        .collect();
    assert_eq!(html_text, md_text);
    assert_eq!(
        md_text.iter().filter(|l| l.starts_with("*: ")).count(),
        2,
        "the footnote under the matrix and under the details: {md}"
    );
    let md_titles: Vec<&str> = md.lines().filter_map(|l| l.strip_prefix("## ")).collect();
    assert_eq!(
        elements(&html, "<h2", "</h2>"),
        [md_titles, vec!["Plots"]].concat()
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn each_cell_shows_when_where_and_by_which_tmd_it_was_computed() {
    let out = scratch("provenance");
    report("glibc", "nearest", &out);
    let version = Command::new(env!("CARGO_BIN_EXE_tmd"))
        .arg("--version")
        .output()
        .unwrap();
    let version = String::from_utf8(version.stdout)
        .unwrap()
        .trim()
        .to_string();
    let mut cell = cell_json(&out, "expf.glibc.nearest");
    assert_eq!(cell["computed"]["tmd"], version.as_str(), "{cell}");
    assert!(cell["computed"]["machine"]
        .as_str()
        .unwrap()
        .contains("cores"));
    // A cell computed elsewhere, and one whose JSON does not say.
    cell["computed"]["date"] = "2020-01-02 03:04 UTC".into();
    cell["computed"]["machine"] = "64 cores (elsewhere)".into();
    cell["computed"]["tmd"] = "tmd 0.0.9 (commit 000000000000)".into();
    write_cell_json(&out, "expf.glibc.nearest", &cell);
    let mut old = cell_json(&out, "logf.glibc.nearest");
    old.as_object_mut().unwrap().remove("computed");
    write_cell_json(&out, "logf.glibc.nearest", &old);
    std::fs::remove_file(out.join("report.html")).unwrap();
    report("glibc", "nearest", &out);
    let rows = html_rows(&read(&out.join("report.html")));
    let row = |name: &str| {
        rows.iter()
            .rev()
            .find(|r| r.contains(&format!("| {name} | nearest |")))
            .unwrap()
            .clone()
    };
    assert!(
        row("glibc:expf").ends_with(
            "| 2020-01-02 03:04 UTC | 64 cores (elsewhere) | tmd 0.0.9 (commit 000000000000) |"
        ),
        "{rows:?}"
    );
    assert!(
        row("glibc:logf").ends_with("| unknown | unknown | unknown |"),
        "{rows:?}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_rebuilt_report_draws_missing_plots_again_and_links_only_plots_that_exist() {
    let out = scratch("plots");
    report("glibc,musl", "nearest", &out);
    let cells = out.join("cells");
    let drawn = std::fs::read(cells.join("logf.musl.nearest.svg")).unwrap();
    std::fs::remove_file(cells.join("logf.musl.nearest.svg")).unwrap();
    // Without its checkpoint a cell's plot cannot be drawn again.
    std::fs::remove_file(cells.join("expf.musl.nearest.svg")).unwrap();
    std::fs::remove_file(cells.join("expf.musl.nearest.ckpt")).unwrap();
    std::fs::remove_file(out.join("report.html")).unwrap();
    report("glibc,musl", "nearest", &out);
    assert_eq!(
        std::fs::read(cells.join("logf.musl.nearest.svg")).unwrap(),
        drawn
    );
    let html = read(&out.join("report.html"));
    for stem in ["expf.glibc", "logf.glibc", "logf.musl"] {
        let img = format!("<img src=\"cells/{stem}.nearest.svg\"");
        assert!(html.contains(&img), "{stem}: {html}");
    }
    assert!(
        !html.contains("src=\"cells/expf.musl.nearest.svg\""),
        "{html}"
    );
    assert!(
        !html.contains("href=\"cells/expf.musl.nearest.svg\""),
        "{html}"
    );
    assert!(
        html.contains("musl:expf, rounding nearest: no plot"),
        "{html}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// Headless Chromium on `page` at the window's size, with `args`.
fn chromium(page: &Path, args: &[&str]) -> Output {
    let profile = scratch("chromium-profile");
    let out = Command::new("timeout")
        .arg("60")
        .arg("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &format!("--window-size={},{}", WINDOW.0, WINDOW.1),
            &format!("--user-data-dir={}", profile.display()),
        ])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("timeout runs");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        out.status.success(),
        "chromium (scripts/setup.sh installs it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A number the page's load handler wrote on `<body>` as `data-NAME`.
fn body_number(dom: &str, name: &str) -> u64 {
    let body = &dom[dom.find("<body").expect("a body")..];
    let body = &body[..body.find('>').unwrap()];
    let key = format!("data-{name}=\"");
    let start = body
        .find(&key)
        .unwrap_or_else(|| panic!("the page's load handler ran: {body}"))
        + key.len();
    let value = &body[start..];
    value[..value.find('"').unwrap()].parse().unwrap()
}

#[test]
fn the_page_renders_in_chromium_without_broken_images_within_the_window() {
    assert!(
        Command::new("sh")
            .args(["-c", "command -v chromium"])
            .output()
            .is_ok_and(|o| o.status.success()),
        "chromium is not installed: scripts/setup.sh installs it"
    );
    let out = scratch("chromium");
    // 4 libraries x 4 modes: a matrix wider than the window, which must scroll in its box.
    report("glibc,musl,sleef,glibc-mvec", "all", &out);
    std::fs::remove_file(out.join("cells/logf.sleef.up.svg")).unwrap();
    std::fs::remove_file(out.join("report.html")).unwrap();
    report("glibc,musl,sleef,glibc-mvec", "all", &out);
    let page = out.join("report.html");
    let dom = String::from_utf8(chromium(&page, &["--dump-dom"]).stdout).unwrap();
    assert_eq!(body_number(&dom, "images"), 32);
    assert_eq!(body_number(&dom, "broken-images"), 0);
    assert!(body_number(&dom, "widest-table") > u64::from(WINDOW.0));
    assert!(body_number(&dom, "scroll-width") <= u64::from(WINDOW.0));
    let shot = out.join("page.png");
    chromium(&page, &[&format!("--screenshot={}", shot.display())]);
    let (width, height, pixels) = decode_png(&shot);
    assert_eq!((width, height), WINDOW);
    let first = &pixels[..4];
    assert!(
        pixels.chunks(4).any(|p| p != first),
        "the screenshot is one colour"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// Width, height and RGBA pixels of a PNG file.
fn decode_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut decoder = png::Decoder::new(file);
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let rgba: Vec<u8> = match info.color_type {
        png::ColorType::Rgba => buf[..info.buffer_size()].to_vec(),
        png::ColorType::Rgb => buf[..info.buffer_size()]
            .chunks(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => panic!("a colour screenshot, not {other:?}"),
    };
    (info.width, info.height, rgba)
}
