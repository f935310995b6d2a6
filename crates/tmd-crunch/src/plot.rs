//! An SVG plot of the per-block maximum error against x (as in figures 3 and 5 of Dukhan and Vuduc, "DoubleCrunch", SC 2015): one
//! point per block, x positions by ordinal (so that every binade gets its share), a log scale
//! in ulps when the errors span more than a factor 10.

use crate::checkpoint::BlockRecord;
use crate::format::CrunchFormat;
use std::fmt::Write;

const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 480.0;
const MARGIN_LEFT: f64 = 80.0;
const MARGIN_BOTTOM: f64 = 60.0;
const MARGIN_TOP: f64 = 40.0;
const MARGIN_RIGHT: f64 = 20.0;

/// Renders the plot; `title` names the target and range.
pub fn svg(title: &str, fmt: CrunchFormat, blocks: &[&BlockRecord]) -> String {
    let points: Vec<(i64, f64)> = blocks
        .iter()
        .filter(|b| b.summary.argmax.is_some())
        .map(|b| (b.first, b.summary.max_ulp))
        .collect();
    let (first, last) = match (blocks.first(), blocks.last()) {
        (Some(a), Some(b)) => (a.first, b.end),
        _ => (0, 1),
    };
    let ymax = points.iter().map(|p| p.1).fold(0.0f64, f64::max).max(1e-3);
    let ymin_pos = points
        .iter()
        .map(|p| p.1)
        .filter(|&v| v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let log_scale = ymin_pos.is_finite() && ymax / ymin_pos > 10.0;
    let plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT;
    let plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM;
    let (lo_y, hi_y) = if log_scale {
        (ymin_pos.log10().floor(), ymax.log10().ceil())
    } else {
        (0.0, ymax * 1.05)
    };
    let ypos = |v: f64| {
        let t = if log_scale {
            (v.max(10f64.powf(lo_y)).log10() - lo_y) / (hi_y - lo_y)
        } else {
            v / hi_y
        };
        MARGIN_TOP + plot_h * (1.0 - t)
    };
    let span = (last - first).max(1) as f64;
    let xpos = |o: i64| MARGIN_LEFT + plot_w * (o - first) as f64 / span;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" text-anchor="middle" font-size="14">{}</text>"#,
        WIDTH / 2.0,
        escape(title)
    );
    let _ = writeln!(
        s,
        r#"<rect x="{MARGIN_LEFT}" y="{MARGIN_TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="black"/>"#
    );
    for i in 0..=4 {
        let t = i as f64 / 4.0;
        let y_val = if log_scale {
            10f64.powf(lo_y + t * (hi_y - lo_y))
        } else {
            t * hi_y
        };
        let y = ypos(y_val);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{:.4}</text>"#,
            MARGIN_LEFT - 6.0,
            y + 4.0,
            y_val
        );
        let o = first + ((last - first) as f64 * t) as i64;
        let x = xpos(o);
        let label = fmt.hex(fmt.from_ordinal(o.min(fmt.max_ordinal())));
        let _ = writeln!(
            s,
            r#"<text x="{x}" y="{}" text-anchor="middle">{}</text>"#,
            HEIGHT - MARGIN_BOTTOM + 18.0,
            escape(&label)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">x (by ordinal)</text>"#,
        MARGIN_LEFT + plot_w / 2.0,
        HEIGHT - 12.0
    );
    let _ = writeln!(
        s,
        r#"<text x="16" y="{}" transform="rotate(-90 16 {})" text-anchor="middle">max error per block (ulps{})</text>"#,
        MARGIN_TOP + plot_h / 2.0,
        MARGIN_TOP + plot_h / 2.0,
        if log_scale { ", log scale" } else { "" }
    );
    for (o, v) in &points {
        let _ = writeln!(
            s,
            r##"<circle cx="{:.2}" cy="{:.2}" r="1.5" fill="#1f5fa8"/>"##,
            xpos(*o),
            ypos(*v)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
